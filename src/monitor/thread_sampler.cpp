// ThreadSampler: keeps one record per live thread with its open descriptors (stat and comm
// files, counters); procfs and perf are reached through src/os.
#include "src/monitor/thread_sampler.hpp"

#include <cerrno>
#include <chrono>
#include <map>
#include <optional>

#include "src/os/proc_parse.hpp"
#include "src/os/procfs.hpp"

namespace threadmap::monitor {

struct Tracked {
  pid_t tid = 0;
  os::ProcFile stat;
  os::ProcFile comm;
  os::ProcFile schedstat;  // run-queue wait; invalid where the kernel keeps none
  std::uint64_t wait_base = 0;
  std::uint64_t start_ticks = 0;
  ThreadCounters counters;
  std::string name;
  int cpu = -1;
  SoftwareCounts last;  // latest counts since first seen
  std::optional<HardwareCounts> hardware;
  std::uint64_t samples = 0;
  bool alive = true;
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

  // Re-reads /proc/PID/task: opens new threads, marks the ones gone. False when the process
  // is gone.
  bool rescan() {
    auto tids = os::list_task_ids(pid);
    if (!tids) return false;
    for (auto& [tid, t] : threads) t->alive = false;
    for (pid_t tid : *tids) {
      auto it = threads.find(tid);
      if (it == threads.end()) {
        auto t = std::make_unique<Tracked>();
        t->tid = tid;
        if (!open_thread(*t)) continue;
        it = threads.emplace(tid, std::move(t)).first;
      }
      it->second->alive = true;
    }
    return true;
  }

  bool open_thread(Tracked& t) {
    t.stat = os::ProcFile(os::task_path(pid, t.tid, "stat"));
    if (!t.stat.valid()) return false;
    if (options.run_queue_wait) {
      t.schedstat = os::ProcFile(os::task_path(pid, t.tid, "schedstat"));
      if (t.schedstat.valid()) t.wait_base = read_wait(t).value_or(0);
    }
    // The first thread decides the source; once perf failed, later threads skip trying it.
    CounterTarget target{pid, t.tid, want_hardware,
                         options.use_perf && (!source_decided || source == CounterSource::perf)};
    auto counters = ThreadCounters::open(target);
    if (!counters) return false;  // ESRCH: gone already
    t.counters = std::move(*counters);
    hardware_seen = hardware_seen || t.counters.has_hardware();
    if (!source_decided) {
      source_decided = true;
      source = t.counters.source();
    } else if (t.counters.source() != source && source != CounterSource::observed) {
      // Mixed sources: the summary names the weakest one any thread had.
      if (t.counters.source() == CounterSource::observed || source == CounterSource::perf)
        source = t.counters.source();
    }
    return true;
  }

  void read_name(Tracked& t) {
    if (!t.comm.valid()) {
      t.comm = os::ProcFile(os::task_path(pid, t.tid, "comm"));
      if (!t.comm.valid()) return;
    }
    char buf[64];
    long n = t.comm.read(buf, sizeof buf);
    if (n <= 0) return;
    std::string name(buf, static_cast<size_t>(n));
    while (!name.empty() && name.back() == '\n') name.pop_back();
    t.name = name;
  }

  // The run-queue wait since boot (schedstat's second field); empty when not kept.
  static std::optional<std::uint64_t> read_wait(const Tracked& t) {
    char buf[128];
    if (t.schedstat.read(buf, sizeof buf) <= 0) return std::nullopt;
    auto st = os::parse_schedstat(buf);
    return st ? std::optional<std::uint64_t>(st->wait_ns) : std::nullopt;
  }

  // Returns false when the thread is gone.
  bool read_thread(Tracked& t) {
    const bool counted = t.counters.source() != CounterSource::observed;
    bool need_stat = t.samples == 0 || t.counters.source() != CounterSource::perf;
    if (counted) {
      auto counts = t.counters.read_software();
      if (!counts) return false;
      // A thread that did not migrate is still on the same CPU: no need to read stat again.
      if (counts->migrations != t.last.migrations) need_stat = true;
      t.last = *counts;
      t.hardware = t.counters.read_hardware();
    }
    if (need_stat) {
      char buf[2048];
      if (t.stat.read(buf, sizeof buf) <= 0) return false;
      int cpu = os::parse_task_stat_cpu(buf);
      if (!counted && t.samples > 0 && cpu != t.cpu) ++t.last.migrations;
      t.cpu = cpu;
      if (t.samples == 0) t.start_ticks = os::parse_task_stat_start_ticks(buf);
    }
    // The schedstat read also tells an exited thread from a live one: a perf counter of an
    // exited thread still reads its last counts, and its stat file is not read while it does
    // not migrate, so without it a thread that exited while another started (the task count
    // unchanged) would stay listed and the new one unseen.
    if (t.schedstat.valid()) {
      auto wait = read_wait(t);
      if (!wait) return false;
      t.last.wait_ns = *wait > t.wait_base ? *wait - t.wait_base : 0;
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
  os::raise_open_file_limit();
}

ThreadSampler::~ThreadSampler() = default;

Result<ProcessSample> ThreadSampler::sample() {
  State& s = *state_;
  ProcessSample out;
  out.time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.start).count();
  // Listing /proc/PID/task costs a dentry lookup per thread; it is only done when the thread
  // count changed or a known thread could not be read (one exited, maybe another started).
  long count = os::task_count(s.pid);
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
      out.threads.push_back(
          ThreadSample{t.tid, t.name, t.cpu, t.last, t.hardware, s.pid, t.start_ticks});
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
