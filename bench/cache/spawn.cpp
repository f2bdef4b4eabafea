// threadmap-spawn: the thread-spawn benchmark of Dice & Kogan ("Intra-process Caching and
// Reuse of Threads"): T creator threads each loop { create an empty thread; join it } for S
// seconds. Reports threads/s and two latency distributions:
//  - create-to-start: creator's clock before pthread_create -> first instruction of the thread;
//  - join: last instruction of the thread -> pthread_join (or equivalent) returning.
// Both from CLOCK_MONOTONIC, as p50/p99 over every cycle of a sampled pass (up to 1M samples
// per creator) that runs after the timed one: the timed pass's threads are truly empty and read
// no clock, so the rate is that of create+join alone, like the floor's job (four clock reads
// per cycle were ~2% of a recycle here).
//
//   threadmap-spawn --creators T --seconds S --variant pthread|thread|async [--batch N] [--json]
//   threadmap-spawn --compare LIB [--creators-list 1,2,4,32] [--seconds S] [--variant V]
//                   [--repeat R] [--batch N]
// --batch N: each creator creates N threads, then joins them all (nothing can be reused while
// the batch is running: the path where the cache must cost no more than glibc).
// System calls per create+join are counted in a shorter pass before the timed one, with
// the raw_syscalls:sys_enter tracepoint (perf_event_open, inherited by every thread made after it
// opens, so the cache's parked threads count too); "not supported" when the kernel does not allow
// it. Not during the timed pass: while the tracepoint is on, every system call of the machine
// takes the kernel's slow tracing path, which would tax the side that makes more calls and the
// rates the floor (measured without it) is compared with.
//   threadmap-spawn --floor --creators T --seconds S [--json]
// measures the hand-off floor alone (see floor_rate) and prints round trips/s.
// --compare runs the benchmark for each T in child processes, without and with
// LD_PRELOAD=LIB, alternating R times (default 5, S seconds each), and prints the median
// threads/s of each side and their ratio (one run, interleaved so that load from other
// processes hits both sides alike). `threadmap bench spawn` drives the first form; keep its
// interface stable.
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "src/core/verdict.hpp"

namespace {

std::uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

enum class Variant { kPthread, kThread, kAsync };

struct Options {
  int creators = 1;
  double seconds = 1.0;
  Variant variant = Variant::kPthread;
  bool json = false;
  std::string compare_lib;  // non-empty: comparison mode
  std::vector<int> creators_list{1, 2, 4, 32};
  int repeat = 5;
  int batch = 0;       // > 0: create this many, then join them all
  bool floor = false;  // --floor: measure the hand-off floor only
};

// What the spawned thread writes: its first and last instruction times.
struct Stamp {
  std::uint64_t started_ns = 0;
  std::uint64_t finished_ns = 0;
};

void* stamped_thread(void* arg) {
  auto* stamp = static_cast<Stamp*>(arg);
  stamp->started_ns = now_ns();
  stamp->finished_ns = now_ns();
  return nullptr;
}

// What the timed passes run: nothing (the argument is ignored).
void* empty_thread(void* arg) {
  asm volatile("" : : "r"(arg) : "memory");  // not folded into another function
  return nullptr;
}

constexpr std::size_t kMaxSamplesPerCreator = 1u << 20;

struct CreatorResult {
  std::uint64_t cycles = 0;
  std::vector<std::uint32_t> create_to_start_ns;
  std::vector<std::uint32_t> join_ns;
  int error = 0;  // errno-style code of the first failing create/join
};

std::uint32_t clamp_ns(std::uint64_t later, std::uint64_t earlier) {
  if (later < earlier) return 0;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(later - earlier, UINT32_MAX));
}

// One create+join cycle; returns 0 or an error code. SAMPLE: the thread and the creator read
// the clock for the latency distributions.
int one_cycle(Variant variant, bool sample, CreatorResult& out) {
  Stamp stamp;
  void* (*body)(void*) = sample ? stamped_thread : empty_thread;
  std::uint64_t before = sample ? now_ns() : 0;
  switch (variant) {
    case Variant::kPthread: {
      pthread_t thread;
      int r = pthread_create(&thread, nullptr, body, &stamp);
      if (r != 0) return r;
      r = pthread_join(thread, nullptr);
      if (r != 0) return r;
      break;
    }
    case Variant::kThread: {
      try {
        std::thread thread(body, &stamp);
        thread.join();
      } catch (const std::system_error& e) {
        return e.code().value();
      }
      break;
    }
    case Variant::kAsync: {
      try {
        auto future = std::async(std::launch::async, body, &stamp);
        future.get();
      } catch (const std::system_error& e) {  // the future's destructor joined the thread
        return e.code().value();
      }
      break;
    }
  }
  ++out.cycles;
  if (sample && out.join_ns.size() < kMaxSamplesPerCreator) {
    std::uint64_t after = now_ns();
    out.create_to_start_ns.push_back(clamp_ns(stamp.started_ns, before));
    out.join_ns.push_back(clamp_ns(after, stamp.finished_ns));
  }
  return 0;
}

// Creates N threads, then joins them all; latencies are not sampled (cycles only).
int one_batch(Variant variant, int n, CreatorResult& out) {
  std::vector<Stamp> stamps(static_cast<std::size_t>(n));
  int result = 0;
  switch (variant) {
    case Variant::kPthread: {
      std::vector<pthread_t> threads;
      threads.reserve(stamps.size());
      for (auto& st : stamps) {
        pthread_t t;
        result = pthread_create(&t, nullptr, empty_thread, &st);
        if (result != 0) break;
        threads.push_back(t);
      }
      for (pthread_t t : threads) pthread_join(t, nullptr);
      break;
    }
    case Variant::kThread: {
      std::vector<std::thread> threads;
      threads.reserve(stamps.size());
      try {
        for (auto& st : stamps) threads.emplace_back(empty_thread, &st);
      } catch (const std::system_error& e) {
        result = e.code().value();
      }
      for (auto& t : threads) t.join();
      break;
    }
    case Variant::kAsync: {
      std::vector<std::future<void*>> futures;
      futures.reserve(stamps.size());
      try {
        for (auto& st : stamps)
          futures.push_back(std::async(std::launch::async, empty_thread, &st));
      } catch (const std::system_error& e) {
        result = e.code().value();
      }
      for (auto& f : futures) f.get();
      break;
    }
  }
  if (result == 0) out.cycles += static_cast<std::uint64_t>(n);
  return result;
}

struct Percentiles {
  std::uint64_t p50 = 0;
  std::uint64_t p99 = 0;
};

Percentiles percentiles(std::vector<std::uint32_t>& v) {
  Percentiles p;
  if (v.empty()) return p;
  auto at = [&v](double q) {
    std::size_t k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return static_cast<std::uint64_t>(v[k]);
  };
  p.p50 = at(0.50);
  p.p99 = at(0.99);
  return p;
}

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::kPthread:
      return "pthread";
    case Variant::kThread:
      return "thread";
    case Variant::kAsync:
      return "async";
  }
  return "?";
}

// Counts the system calls of this process's threads created after it opens (see the header).
class SyscallCounter {
 public:
  SyscallCounter() {
    int id = tracepoint_id();
    if (id < 0) {
      reason_ = "no raw_syscalls:sys_enter tracepoint (tracefs not mounted or not readable)";
      return;
    }
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_TRACEPOINT;
    attr.config = static_cast<std::uint64_t>(id);
    attr.disabled = 1;
    attr.inherit = 1;
    fd_ = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
    if (fd_ < 0) reason_ = std::string("perf_event_open: ") + std::strerror(errno);
  }
  ~SyscallCounter() {
    if (fd_ >= 0) close(fd_);
  }
  SyscallCounter(const SyscallCounter&) = delete;
  SyscallCounter& operator=(const SyscallCounter&) = delete;
  void start() {
    if (fd_ < 0) return;
    ioctl(fd_, PERF_EVENT_IOC_RESET, 0);
    ioctl(fd_, PERF_EVENT_IOC_ENABLE, 0);
  }
  // The count since start(), or -1 when not supported.
  long long stop() {
    if (fd_ < 0) return -1;
    ioctl(fd_, PERF_EVENT_IOC_DISABLE, 0);
    std::uint64_t count = 0;
    if (read(fd_, &count, sizeof count) != static_cast<ssize_t>(sizeof count)) {
      reason_ = std::string("reading the counter: ") + std::strerror(errno);
      return -1;
    }
    return static_cast<long long>(count);
  }
  const std::string& reason() const { return reason_; }

 private:
  static int tracepoint_id() {
    for (const char* path : {"/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
                             "/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id"}) {
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      char text[32] = {0};
      ssize_t n = read(fd, text, sizeof text - 1);
      close(fd);
      if (n > 0) return std::atoi(text);
    }
    return -1;
  }
  int fd_ = -1;
  std::string reason_;
};

struct RunResult {
  double threads_per_second = 0;
  double syscalls_per_cycle = -1;  // -1: not counted (see syscalls_reason)
  std::string syscalls_reason;
  Percentiles create_to_start;
  Percentiles join;
  std::uint64_t samples = 0;
  double wall_seconds = 0;
  // Percent of the machine's CPU time that other programs used while this run went (all busy
  // time in /proc/stat minus the run's own rusage): with one creator the cache needs a second
  // free CPU to spin on, so a run beside other work measures the futex path instead (the
  // 7.5x-47x swing of one creator on 2 vCPUs; docs/results/2026-11-26-cache-one-creator-swing.md).
  double others_busy_pct = -1;
  int error = 0;
};

// The three passes of one measurement: system calls counted, the rate timed, latencies sampled.
enum class Pass { kCounted, kTimed, kSampled };

RunResult run(const Options& opt, Pass pass) {
  bool count_syscalls = pass == Pass::kCounted;
  bool sample = pass == Pass::kSampled;
  std::vector<CreatorResult> results(static_cast<std::size_t>(opt.creators));
  for (auto& r : results) {
    if (!sample) continue;
    r.create_to_start_ns.reserve(1u << 16);
    r.join_ns.reserve(1u << 16);
  }
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  std::vector<pthread_t> creators(results.size());
  struct Ctx {
    const Options* opt;
    bool sample;
    CreatorResult* out;
    std::atomic<int>* ready;
    std::atomic<bool>* go;
    std::atomic<bool>* stop;
  };
  std::vector<Ctx> ctx(results.size());
  auto body = [](void* p) -> void* {
    auto* c = static_cast<Ctx*>(p);
    c->ready->fetch_add(1);
    while (!c->go->load(std::memory_order_acquire)) sched_yield();
    while (!c->stop->load(std::memory_order_relaxed)) {
      int r = c->opt->batch > 0 ? one_batch(c->opt->variant, c->opt->batch, *c->out)
                                : one_cycle(c->opt->variant, c->sample, *c->out);
      if (r != 0) {
        c->out->error = r;
        break;
      }
    }
    return nullptr;
  };
  RunResult rr;
  std::optional<SyscallCounter> counter;  // opened before the creators exist: they inherit it
  if (count_syscalls) counter.emplace();
  // Creators are plain pthreads made before timing starts (they are not what is measured).
  for (std::size_t i = 0; i < results.size(); ++i) {
    ctx[i] = Ctx{&opt, sample, &results[i], &ready, &go, &stop};
    int r = pthread_create(&creators[i], nullptr, body, &ctx[i]);
    if (r != 0) {
      rr.error = r;
      stop = true;
      go = true;
      for (std::size_t j = 0; j < i; ++j) pthread_join(creators[j], nullptr);
      return rr;
    }
  }
  while (ready.load() < opt.creators) sched_yield();
  if (counter) counter->start();
  std::uint64_t start = now_ns();
  go.store(true, std::memory_order_release);
  timespec pause{static_cast<time_t>(opt.seconds),
                 static_cast<long>(
                     (opt.seconds - static_cast<double>(static_cast<time_t>(opt.seconds))) * 1e9)};
  while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
  }
  stop.store(true);
  for (auto& c : creators) pthread_join(c, nullptr);
  std::uint64_t end = now_ns();
  long long syscalls = counter ? counter->stop() : -1;
  std::uint64_t cycles = 0;
  std::vector<std::uint32_t> starts, joins;
  for (auto& r : results) {
    cycles += r.cycles;
    if (r.error && !rr.error) rr.error = r.error;
    starts.insert(starts.end(), r.create_to_start_ns.begin(), r.create_to_start_ns.end());
    joins.insert(joins.end(), r.join_ns.begin(), r.join_ns.end());
  }
  rr.wall_seconds = static_cast<double>(end - start) / 1e9;
  rr.threads_per_second = static_cast<double>(cycles) / rr.wall_seconds;
  if (syscalls >= 0 && cycles > 0)
    rr.syscalls_per_cycle = static_cast<double>(syscalls) / static_cast<double>(cycles);
  else if (counter)
    rr.syscalls_reason = counter->reason();
  rr.samples = joins.size();
  rr.create_to_start = percentiles(starts);
  rr.join = percentiles(joins);
  return rr;
}

// JSON value of the syscall count: a number, or null when it could not be counted.
std::string syscalls_text(const RunResult& r) {
  if (r.syscalls_per_cycle < 0) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", r.syscalls_per_cycle);
  return text;
}

void print_json(const Options& opt, const RunResult& r) {
  std::printf(
      "{\"schema\":\"threadmap.spawn/1\",\"variant\":\"%s\",\"creators\":%d,\"seconds\":%.3f,"
      "\"threads_per_second\":%.1f,\"create_to_start_ns\":{\"p50\":%llu,\"p99\":%llu},"
      "\"join_ns\":{\"p50\":%llu,\"p99\":%llu},\"syscalls_per_cycle\":%s}\n",
      variant_name(opt.variant), opt.creators, r.wall_seconds, r.threads_per_second,
      static_cast<unsigned long long>(r.create_to_start.p50),
      static_cast<unsigned long long>(r.create_to_start.p99),
      static_cast<unsigned long long>(r.join.p50), static_cast<unsigned long long>(r.join.p99),
      syscalls_text(r).c_str());
}

void print_text(const Options& opt, const RunResult& r) {
  std::printf("variant %s, %d creator thread(s), %.2f s wall\n", variant_name(opt.variant),
              opt.creators, r.wall_seconds);
  std::printf("threads/s: %.0f (create+join cycles completed / wall seconds)\n",
              r.threads_per_second);
  std::printf(
      "create-to-first-instruction: p50 %llu ns, p99 %llu ns (CLOCK_MONOTONIC, %llu cycles)\n",
      static_cast<unsigned long long>(r.create_to_start.p50),
      static_cast<unsigned long long>(r.create_to_start.p99),
      static_cast<unsigned long long>(r.samples));
  std::printf("join (thread's last instruction to join return): p50 %llu ns, p99 %llu ns\n",
              static_cast<unsigned long long>(r.join.p50),
              static_cast<unsigned long long>(r.join.p99));
  if (r.syscalls_per_cycle >= 0)
    std::printf(
        "system calls per create+join: %.3f (raw_syscalls:sys_enter, all threads, counted "
        "pass)\n",
        r.syscalls_per_cycle);
  else
    std::printf("system calls per create+join: not supported (%s)\n", r.syscalls_reason.c_str());
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "threadmap-spawn: %s\nusage: threadmap-spawn --creators T --seconds S "
               "--variant pthread|thread|async [--batch N] [--json]\n"
               "       threadmap-spawn --floor --creators T --seconds S [--json]\n"
               "       threadmap-spawn --compare LIB [--creators-list 1,2,4,32] [--seconds S] "
               "[--variant V] [--repeat R]\n",
               why);
  std::exit(2);
}

int parse_int(const char* text, const char* what, int lo, int hi) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (errno || end == text || *end || v < lo || v > hi)
    usage((std::string(what) + " must be an integer in [" + std::to_string(lo) + ", " +
           std::to_string(hi) + "], got '" + text + "'")
              .c_str());
  return static_cast<int>(v);
}

Options parse(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage((a + " needs a value").c_str());
      return argv[++i];
    };
    if (a == "--creators") {
      opt.creators = parse_int(value(), "--creators", 1, 4096);
    } else if (a == "--seconds") {
      const char* v = value();
      char* end = nullptr;
      opt.seconds = std::strtod(v, &end);
      if (end == v || *end || !(opt.seconds > 0) || opt.seconds > 3600)
        usage((std::string("--seconds must be a number in (0, 3600], got '") + v + "'").c_str());
    } else if (a == "--variant") {
      std::string v = value();
      if (v == "pthread")
        opt.variant = Variant::kPthread;
      else if (v == "thread")
        opt.variant = Variant::kThread;
      else if (v == "async")
        opt.variant = Variant::kAsync;
      else
        usage(("--variant must be pthread, thread or async, got '" + v + "'").c_str());
    } else if (a == "--batch") {
      opt.batch = parse_int(value(), "--batch", 0, 4096);
    } else if (a == "--json") {
      opt.json = true;
    } else if (a == "--floor") {
      opt.floor = true;
    } else if (a == "--compare") {
      opt.compare_lib = value();
    } else if (a == "--repeat") {
      opt.repeat = parse_int(value(), "--repeat", 1, 1000);
    } else if (a == "--creators-list") {
      opt.creators_list.clear();
      std::string list = value();
      std::size_t pos = 0;
      while (pos <= list.size()) {
        std::size_t comma = list.find(',', pos);
        if (comma == std::string::npos) comma = list.size();
        opt.creators_list.push_back(
            parse_int(list.substr(pos, comma - pos).c_str(), "--creators-list entry", 1, 4096));
        pos = comma + 1;
      }
    } else {
      usage(("unknown argument '" + a + "'").c_str());
    }
  }
  return opt;
}

// The hand-off floor: what passing a job to a waiting thread and getting the answer back costs
// at best, measured beside the cache in the same run. T = 1: one pair exchanging through two
// spinning cache lines (what a recycle with a spinning worker and joiner could reach). T > 1:
// T pairs, each round trip one futex wake + wait each way (a recycle with no CPU to spin on).
// Returns round trips per second over all pairs.
struct alignas(64) PaddedWord {
  std::atomic<std::uint32_t> value{0};
};

long futex_call(std::atomic<std::uint32_t>* word, int op, std::uint32_t val) {
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op | FUTEX_PRIVATE_FLAG, val,
                 nullptr, nullptr, 0);
}

double floor_rate(int pairs, double seconds) {
  std::atomic<bool> stop{false};
  std::vector<std::uint64_t> trips(static_cast<std::size_t>(pairs), 0);
  std::vector<PaddedWord> job(static_cast<std::size_t>(pairs)),
      done(static_cast<std::size_t>(pairs));
  bool spin = pairs == 1;
  const std::uint32_t kStop = 0xffffffffu;
  // Waits until *w == want (or the stop value): spinning (T = 1) or on the futex.
  auto wait_for = [spin, kStop](std::atomic<std::uint32_t>& w, std::uint32_t want) {
    for (;;) {
      std::uint32_t v = w.load(std::memory_order_acquire);
      if (v == want || v == kStop) return;
      if (!spin) futex_call(&w, FUTEX_WAIT, v);
    }
  };
  auto post = [spin](std::atomic<std::uint32_t>& w, std::uint32_t v) {
    w.store(v, std::memory_order_release);
    if (!spin) futex_call(&w, FUTEX_WAKE, 1);
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < pairs; ++i) {
    auto& j = job[static_cast<std::size_t>(i)].value;
    auto& d = done[static_cast<std::size_t>(i)].value;
    threads.emplace_back([&j, &d, &wait_for, &post, kStop] {  // the "worker"
      for (std::uint32_t n = 1;; ++n) {
        wait_for(j, n);
        if (j.load(std::memory_order_acquire) == kStop) return;
        post(d, n);
      }
    });
    threads.emplace_back([&j, &d, &stop, &trips, i, &wait_for, &post, kStop] {  // the "creator"
      std::uint64_t n = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        ++n;
        post(j, static_cast<std::uint32_t>(n));
        wait_for(d, static_cast<std::uint32_t>(n));
      }
      trips[static_cast<std::size_t>(i)] = n;
      post(j, kStop);
    });
  }
  std::uint64_t start = now_ns();
  timespec pause{
      static_cast<time_t>(seconds),
      static_cast<long>((seconds - static_cast<double>(static_cast<time_t>(seconds))) * 1e9)};
  while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
  }
  stop.store(true);
  for (auto& t : threads) t.join();
  double wall = static_cast<double>(now_ns() - start) / 1e9;
  std::uint64_t total = 0;
  for (auto n : trips) total += n;
  return static_cast<double>(total) / wall;
}

// Busy clock ticks of the whole machine (user nice system irq softirq of /proc/stat's first
// line); -1 when unreadable.
double machine_busy_ticks() {
  FILE* f = std::fopen("/proc/stat", "re");
  if (f == nullptr) return -1;
  unsigned long long v[7] = {};
  int got = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                        &v[4], &v[5], &v[6]);
  std::fclose(f);
  if (got != 7) return -1;
  return static_cast<double>(v[0] + v[1] + v[2] + v[5] + v[6]);
}

// Runs this binary in a child with or without LD_PRELOAD and parses its --json line.
bool run_child(const char* self, const Options& opt, int creators, const std::string& preload,
               RunResult& out) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    if (preload.empty())
      unsetenv("LD_PRELOAD");
    else
      setenv("LD_PRELOAD", preload.c_str(), 1);
    std::string t = std::to_string(creators), s = std::to_string(opt.seconds);
    std::string b = std::to_string(opt.batch);
    execl(self, self, "--creators", t.c_str(), "--seconds", s.c_str(), "--variant",
          variant_name(opt.variant), "--batch", b.c_str(), "--json", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  double busy_before = machine_busy_ticks();
  std::uint64_t began = now_ns();
  std::string text;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  double wall = static_cast<double>(now_ns() - began) / 1e9;
  double busy_after = machine_busy_ticks();
  long hz = sysconf(_SC_CLK_TCK);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (busy_before >= 0 && busy_after >= 0 && hz > 0 && cpus > 0 && wall > 0) {
    double own = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                 static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    double others = (busy_after - busy_before) / static_cast<double>(hz) - own;
    out.others_busy_pct = std::max(0.0, 100.0 * others / (wall * static_cast<double>(cpus)));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return false;
  auto num = [&text](const char* key, std::size_t from = 0) -> double {
    std::size_t k = text.find(key, from);
    if (k == std::string::npos) return -1;
    return std::strtod(text.c_str() + k + std::strlen(key), nullptr);
  };
  out.threads_per_second = num("\"threads_per_second\":");
  if (text.find("\"syscalls_per_cycle\":null") == std::string::npos)
    out.syscalls_per_cycle = num("\"syscalls_per_cycle\":");
  std::size_t c = text.find("\"create_to_start_ns\"");
  std::size_t j = text.find("\"join_ns\"");
  out.create_to_start.p50 = static_cast<std::uint64_t>(num("\"p50\":", c));
  out.create_to_start.p99 = static_cast<std::uint64_t>(num("\"p99\":", c));
  out.join.p50 = static_cast<std::uint64_t>(num("\"p50\":", j));
  out.join.p99 = static_cast<std::uint64_t>(num("\"p99\":", j));
  return out.threads_per_second > 0;
}

int compare(const char* self, const Options& opt) {
  if (access(opt.compare_lib.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "threadmap-spawn: cannot read cache library '%s': %s\n",
                 opt.compare_lib.c_str(), std::strerror(errno));
    return 1;
  }
  std::printf(
      "spawn benchmark, variant %s, %d x %.2f s per side, interleaved; default = glibc, "
      "cache = LD_PRELOAD=%s\n",
      variant_name(opt.variant), opt.repeat, opt.seconds, opt.compare_lib.c_str());
  if (opt.batch > 0)
    std::printf("batches: each creator creates %d threads, then joins them all\n", opt.batch);
  std::printf("%8s %14s %14s %8s %-30s %14s %9s %16s %22s %22s %9s\n", "creators", "default thr/s",
              "cache thr/s", "ratio", "verdict", "floor trips/s", "c/floor", "sys/cycle d/c",
              "start p50 ns def/cache", "join p50 ns def/cache", "others %");
  int failures = 0;
  double others_max = -1;
  bool any_collapsed = false;
  auto median = [](std::vector<RunResult> v, auto key) {
    std::sort(v.begin(), v.end(),
              [&](const RunResult& a, const RunResult& b) { return key(a) < key(b); });
    return key(v[v.size() / 2]);
  };
  for (int t : opt.creators_list) {
    std::vector<RunResult> defs, caches;
    std::vector<double> floors;
    bool ok = true;
    for (int r = 0; r < opt.repeat && ok; ++r) {
      RunResult def, cache;
      ok = run_child(self, opt, t, "", def) && run_child(self, opt, t, opt.compare_lib, cache);
      defs.push_back(def);
      caches.push_back(cache);
      if (opt.batch == 0) floors.push_back(floor_rate(t, opt.seconds));
    }
    std::sort(floors.begin(), floors.end());
    double floor_median = floors.empty() ? 0 : floors[floors.size() / 2];
    if (!ok) {
      std::printf("%8d  run failed\n", t);
      ++failures;
      continue;
    }
    auto tps = [](const RunResult& r) { return r.threads_per_second; };
    auto start = [](const RunResult& r) { return static_cast<double>(r.create_to_start.p50); };
    auto join = [](const RunResult& r) { return static_cast<double>(r.join.p50); };
    double d = median(defs, tps), c = median(caches, tps);
    // The verdict of the rounds (each repeat ran glibc then the cache, side by side): the
    // paired rule beside the unpaired one; "too few runs to judge" under 4 repeats.
    std::vector<double> def_rates, cache_rates;
    for (std::size_t i = 0; i < defs.size(); ++i) {
      def_rates.push_back(defs[i].threads_per_second);
      cache_rates.push_back(caches[i].threads_per_second);
    }
    const threadmap::Verdict verdict =
        threadmap::compare_rounds(cache_rates, def_rates, /*higher_is_better=*/true);
    std::string verdict_text = verdict.short_text();
    if (verdict.clear()) verdict_text += " (" + verdict.decider_name() + ")";
    // A floor below glibc's own create+join rate is no floor: its pair did not get a CPU each.
    const bool collapsed = floor_median > 0 && floor_median < d;
    any_collapsed = any_collapsed || collapsed;
    char floor_ratio[16] = "n/a";
    if (collapsed)
      std::snprintf(floor_ratio, sizeof floor_ratio, "collapsed");
    else if (floor_median > 0)
      std::snprintf(floor_ratio, sizeof floor_ratio, "%.0f%%", 100.0 * c / floor_median);
    auto sys = [](const RunResult& r) { return r.syscalls_per_cycle; };
    char sys_text[32] = "n/a";
    if (median(defs, sys) >= 0 && median(caches, sys) >= 0)
      std::snprintf(sys_text, sizeof sys_text, "%.1f/%.2f", median(defs, sys), median(caches, sys));
    // The most that others used during any run of this row: one busy run can move a median.
    double others = -1;
    for (const auto* side : {&defs, &caches})
      for (const auto& r : *side) others = std::max(others, r.others_busy_pct);
    others_max = std::max(others_max, others);
    if (verdict.clear() && others >= 10) verdict_text += ", busy";
    char others_text[16] = "n/a";
    if (others >= 0) std::snprintf(others_text, sizeof others_text, "%.0f", others);
    std::printf(
        "%8d %14.0f %14.0f %7.2fx %-30s %14.0f %9s %16s %10.0f/%-11.0f %10.0f/%-11.0f %9s\n", t, d,
        c, c / d, verdict_text.c_str(), floor_median, floor_ratio, sys_text, median(defs, start),
        median(caches, start), median(defs, join), median(caches, join), others_text);
    std::fflush(stdout);
  }
  std::printf(
      "threads/s and p50s: medians over the %d runs of each side; ratio = cache / default\n"
      "verdict: threadmap's rule on the rounds (each repeat runs both sides): clear when the "
      "unpaired rule (Mann-Whitney, median intervals apart) or the paired one (signed-rank on "
      "per-repeat ratios) holds with effect >= 5%%, each at p <= 0.025; too few runs to judge "
      "under 5 repeats; \"busy\": clear, but others used the CPUs during the row (others %% >= "
      "10), so the difference may be theirs\n"
      "floor: hand-off round trips/s in this process, run after each pair of sides (T=1: "
      "two spinning cache lines; T>1: T pairs through futex wake/wait); median\n"
      "sys/cycle: system calls per create+join (raw_syscalls:sys_enter over all threads, in a "
      "shorter pass before the timed one), default/cache medians; n/a when the kernel does not "
      "allow counting\n"
      "others %%: the most of the machine's CPU time other programs used during any run of the "
      "row (/proc/stat minus the run's own rusage)\n",
      opt.repeat);
  if (any_collapsed)
    std::printf(
        "c/floor collapsed: the floor measured fewer round trips/s than glibc's own creates/s, "
        "so it is no floor: its pair of threads did not get a CPU each (others used them, or "
        "there are fewer CPUs than threads); no ratio is given against it\n");
  if (others_max >= 10)
    std::printf(
        "not quiet: other programs used up to %.0f%% of the CPUs during these runs; with few "
        "CPUs a hand-off then goes through the futex instead of a spin (the cache declines to "
        "spin without an idle CPU), and both sides' rates move with that load: compare rows "
        "measured on a quiet machine only\n",
        others_max);
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt = parse(argc, argv);
  if (!opt.compare_lib.empty()) {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
      std::fprintf(stderr, "threadmap-spawn: cannot find my own executable: %s\n",
                   std::strerror(errno));
      return 1;
    }
    self[n] = '\0';
    return compare(self, opt);
  }
  if (opt.floor) {
    double trips = floor_rate(opt.creators, opt.seconds);
    if (opt.json)
      std::printf(
          "{\"schema\":\"threadmap.spawn-floor/1\",\"pairs\":%d,\"seconds\":%.3f,"
          "\"round_trips_per_second\":%.1f,\"method\":\"%s\"}\n",
          opt.creators, opt.seconds, trips, opt.creators == 1 ? "spin" : "futex");
    else
      std::printf("hand-off floor, %d pair(s) (%s): %.0f round trips/s\n", opt.creators,
                  opt.creators == 1 ? "two spinning cache lines" : "futex wake/wait", trips);
    return 0;
  }
  // The counted pass first, a fifth as long as the timed one (at least 0.1 s), the same loop:
  // every thread of the process is made after its counter opens and inherits it (the cache's
  // parked threads included; made later, they would escape it). It also warms up both sides.
  // The sampled pass (latencies) last, as short; in a batch run there is nothing to sample.
  Options counted = opt;
  counted.seconds = std::max(0.1, opt.seconds / 5);
  RunResult c = run(counted, Pass::kCounted);
  RunResult r = c.error == 0 ? run(opt, Pass::kTimed) : c;
  if (r.error == 0 && opt.batch == 0) {
    RunResult sampled = run(counted, Pass::kSampled);
    if (sampled.error != 0) r.error = sampled.error;
    r.samples = sampled.samples;
    r.create_to_start = sampled.create_to_start;
    r.join = sampled.join;
  }
  r.syscalls_per_cycle = c.syscalls_per_cycle;
  r.syscalls_reason = c.syscalls_reason;
  if (r.error != 0) {
    std::fprintf(stderr, "threadmap-spawn: thread creation or join failed: %s\n",
                 std::strerror(r.error));
    return 1;
  }
  if (opt.json)
    print_json(opt, r);
  else
    print_text(opt, r);
  return 0;
}
