// ThreadSampler: keeps one record per live thread with its open descriptors.
#include "src/monitor/thread_sampler.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>

namespace threadmap::monitor {

const char* counter_source_name(CounterSource source) {
  switch (source) {
    case CounterSource::perf: return "perf_event_open software counters";
    case CounterSource::sched: return "/proc/PID/task/TID/sched";
    case CounterSource::observed: return "CPU changes seen between samples (lower bound)";
  }
  return "?";
}

namespace {

// Reads a whole small procfs file through an open descriptor into buf; returns bytes or -1.
ssize_t pread_all(int fd, char* buf, size_t size) {
  ssize_t n;
  do {
    n = pread(fd, buf, size - 1, 0);
  } while (n < 0 && errno == EINTR);
  if (n >= 0) buf[n] = '\0';
  return n;
}

// CPU a thread last ran on: field 39 of /proc/.../stat, counted after the ')' ending comm.
int parse_stat_cpu(const char* text) {
  const char* p = std::strrchr(text, ')');
  if (!p) return -1;
  ++p;
  // After ')' comes " S ..." : field 3 is the state; field 39 is 36 spaces further.
  for (int field = 2; field < 39 && *p; ++p)
    if (*p == ' ') ++field;
  return *p ? std::atoi(p) : -1;
}

// Values from /proc/.../sched ("se.nr_migrations : 12").
std::uint64_t sched_value(const char* text, const char* key) {
  const char* p = std::strstr(text, key);
  if (!p) return 0;
  p = std::strchr(p, ':');
  return p ? std::strtoull(p + 1, nullptr, 10) : 0;
}

double sched_double(const char* text, const char* key) {
  const char* p = std::strstr(text, key);
  if (!p) return 0;
  p = std::strchr(p, ':');
  return p ? std::strtod(p + 1, nullptr) : 0;
}

// Lets a watcher hold a few descriptors for each of thousands of threads.
void raise_fd_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

}  // namespace

struct Tracked {
  pid_t tid = 0;
  int stat_fd = -1;
  int sched_fd = -1;
  int comm_fd = -1;
  ThreadCounters counters;
  bool perf = false;
  std::string name;
  int cpu = -1;
  SoftwareCounts base;       // first reading (sched source), subtracted
  SoftwareCounts last;       // latest cumulative counts
  std::optional<HardwareCounts> hardware;
  std::uint64_t samples = 0;
  bool alive = true;
  ~Tracked() {
    if (stat_fd >= 0) close(stat_fd);
    if (sched_fd >= 0) close(sched_fd);
    if (comm_fd >= 0) close(comm_fd);
  }
};

struct ThreadSampler::State {
  pid_t pid = 0;
  SamplerOptions options;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::map<pid_t, std::unique_ptr<Tracked>> threads;
  bool source_decided = false;
  CounterSource source = CounterSource::perf;
  bool hardware_seen = false;
  bool want_hardware = false;
  std::string task_dir;
  // Threads of the process now, or -1 when unknown. procfs gives /proc/PID/task a link count
  // of 2 + threads: one stat(2), where /proc/PID/stat would walk every thread to sum times.
  long num_threads() {
    struct stat st{};
    if (::stat(task_dir.c_str(), &st) != 0 || st.st_nlink < 2) return -1;
    return static_cast<long>(st.st_nlink) - 2;
  }

  // Re-reads /proc/PID/task: opens new threads, marks the ones gone. False when the process
  // is gone.
  bool rescan() {
    DIR* dir = opendir(task_dir.c_str());
    if (!dir) return false;
    for (auto& [tid, t] : threads) t->alive = false;
    while (dirent* entry = readdir(dir)) {
      if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
      pid_t tid = static_cast<pid_t>(std::atoi(entry->d_name));
      auto it = threads.find(tid);
      if (it == threads.end()) {
        auto t = std::make_unique<Tracked>();
        t->tid = tid;
        if (!open_thread(*t)) continue;
        it = threads.emplace(tid, std::move(t)).first;
      }
      it->second->alive = true;
    }
    closedir(dir);
    return true;
  }

  bool open_thread(Tracked& t) {
    std::string dir = task_dir + std::to_string(t.tid);
    t.stat_fd = ::open((dir + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
    if (t.stat_fd < 0) return false;
    if (!source_decided || source == CounterSource::perf) {
      if (options.use_perf) {
        auto counters = ThreadCounters::open(t.tid, want_hardware);
        if (counters) {
          t.counters = std::move(*counters);
          t.perf = true;
          hardware_seen = hardware_seen || t.counters.has_hardware();
        } else if (counters.error().code.value() == ESRCH) {
          return false;
        }
      }
      if (!source_decided) {
        source_decided = true;
        source = t.perf ? CounterSource::perf : CounterSource::sched;
      }
    }
    if (!t.perf) {
      t.sched_fd = ::open((dir + "/sched").c_str(), O_RDONLY | O_CLOEXEC);
      if (t.sched_fd < 0 && source == CounterSource::sched) source = CounterSource::observed;
    }
    return true;
  }

  void read_name(Tracked& t) {
    if (t.comm_fd < 0) {
      std::string path = task_dir + std::to_string(t.tid) + "/comm";
      t.comm_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (t.comm_fd < 0) return;
    }
    char buf[64];
    ssize_t n = pread_all(t.comm_fd, buf, sizeof buf);
    if (n <= 0) return;
    std::string name(buf, static_cast<size_t>(n));
    while (!name.empty() && name.back() == '\n') name.pop_back();
    t.name = name;
  }

  // Returns false when the thread is gone.
  bool read_thread(Tracked& t) {
    char buf[2048];
    bool need_stat = t.samples == 0 || !t.perf;
    if (t.perf) {
      auto counts = t.counters.read_software();
      if (!counts) return false;
      if (counts->migrations != t.last.migrations) need_stat = true;
      t.last = *counts;
      t.hardware = t.counters.read_hardware();
    } else if (t.sched_fd >= 0) {
      if (pread_all(t.sched_fd, buf, sizeof buf) <= 0) return false;
      SoftwareCounts now;
      now.migrations = sched_value(buf, "se.nr_migrations");
      now.context_switches = sched_value(buf, "nr_switches");
      now.task_clock_ns =
          static_cast<std::uint64_t>(sched_double(buf, "se.sum_exec_runtime") * 1e6);
      if (t.samples == 0) t.base = now;
      t.last = {now.task_clock_ns - t.base.task_clock_ns, now.migrations - t.base.migrations,
                now.context_switches - t.base.context_switches};
    }
    if (need_stat) {
      if (pread_all(t.stat_fd, buf, sizeof buf) <= 0) return false;
      int cpu = parse_stat_cpu(buf);
      if (!t.perf && t.sched_fd < 0 && t.samples > 0 && cpu != t.cpu) ++t.last.migrations;
      t.cpu = cpu;
    }
    if (t.samples % 10 == 0) read_name(t);  // names change rarely; re-read about once a second
    ++t.samples;
    return true;
  }
};

ThreadSampler::ThreadSampler(pid_t pid, SamplerOptions options) : state_(new State) {
  state_->pid = pid;
  state_->options = options;
  state_->want_hardware = options.hardware && hardware_counters_available(nullptr);
  state_->task_dir = "/proc/" + std::to_string(pid) + "/task/";
  raise_fd_limit();
}

ThreadSampler::~ThreadSampler() = default;

Result<ProcessSample> ThreadSampler::sample() {
  State& s = *state_;
  ProcessSample out;
  out.time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.start).count();
  // Listing /proc/PID/task costs a dentry lookup per thread; it is only done when the thread
  // count changed or a known thread could not be read (one exited, maybe another started).
  long count = s.num_threads();
  bool scanned = false;
  if (s.threads.empty() || count < 0 || static_cast<size_t>(count) != s.threads.size()) {
    if (!s.rescan())
      return Error::from_errno(ESRCH, "process " + std::to_string(s.pid) + " has exited");
    scanned = true;
  }
  for (int pass = 0; pass < 2; ++pass) {
    bool lost = false;
    out.threads.clear();
    for (auto it = s.threads.begin(); it != s.threads.end();) {
      Tracked& t = *it->second;
      if (!t.alive || !s.read_thread(t)) {
        it = s.threads.erase(it);
        lost = true;
        continue;
      }
      out.threads.push_back(ThreadSample{t.tid, t.name, t.cpu, t.last, t.hardware});
      ++it;
    }
    if (!lost || scanned) break;
    if (!s.rescan())
      return Error::from_errno(ESRCH, "process " + std::to_string(s.pid) + " has exited");
    scanned = true;
  }
  if (out.threads.empty())
    return Error::from_errno(ESRCH, "process " + std::to_string(s.pid) + " has no threads left");
  return out;
}

CounterSource ThreadSampler::source() const { return state_->source; }
bool ThreadSampler::hardware_counters() const { return state_->hardware_seen; }
pid_t ThreadSampler::pid() const { return state_->pid; }

}  // namespace threadmap::monitor
