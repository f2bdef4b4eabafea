#include "src/experiments/thread_counters.hpp"

#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace threadmap::experiments {
namespace {

// perf_event_open for the calling thread on any CPU, counting from now. Kernel-side events are
// included: a context switch happens in the kernel, so exclude_kernel would count zero.
int open_counter(std::uint32_t type, std::uint64_t config) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = type;
  attr.config = config;
  attr.exclude_hv = 1;
  for (int attempt = 0; attempt < 5; ++attempt) {
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0 || errno != EINTR) return static_cast<int>(fd);
  }
  return -1;
}

constexpr std::uint64_t cache_config(std::uint64_t cache) {
  return cache | (PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
}

std::uint64_t rusage_switches() {
  rusage usage{};
  if (getrusage(RUSAGE_THREAD, &usage) != 0) return 0;
  return static_cast<std::uint64_t>(usage.ru_nvcsw + usage.ru_nivcsw);
}

// se.nr_migrations of the calling thread; nullopt when the kernel does not show it
// (CONFIG_SCHED_DEBUG off).
std::optional<std::uint64_t> sched_migrations() {
  std::ifstream in("/proc/thread-self/sched");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("se.nr_migrations", 0) != 0) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) return std::nullopt;
    return std::stoull(line.substr(colon + 1));
  }
  return std::nullopt;
}

}  // namespace

const char* thread_event_name(ThreadEvent event) {
  switch (event) {
    case ThreadEvent::context_switches: return "context_switches";
    case ThreadEvent::cpu_migrations: return "cpu_migrations";
    case ThreadEvent::l1d_read_misses: return "l1d_read_misses";
    case ThreadEvent::dtlb_read_misses: return "dtlb_read_misses";
  }
  return "?";
}

ThreadCounters::ThreadCounters() {
  struct Spec {
    std::uint32_t type;
    std::uint64_t config;
    const char* what;
  };
  const Spec specs[kThreadEventCount] = {
      {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "software counter"},
      {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "software counter"},
      {PERF_TYPE_HW_CACHE, cache_config(PERF_COUNT_HW_CACHE_L1D), "hardware cache counter"},
      {PERF_TYPE_HW_CACHE, cache_config(PERF_COUNT_HW_CACHE_DTLB), "hardware cache counter"},
  };
  for (std::size_t i = 0; i < kThreadEventCount; ++i) {
    fds_[i] = open_counter(specs[i].type, specs[i].config);
    if (fds_[i] >= 0) {
      supported_[i] = true;
      how_[i] = std::string("perf_event_open ") + specs[i].what;
      continue;
    }
    const std::string why = std::string("perf_event_open failed: ") + std::strerror(errno);
    const auto event = static_cast<ThreadEvent>(i);
    if (event == ThreadEvent::context_switches) {
      supported_[i] = true;
      fallback_start_[i] = rusage_switches();
      how_[i] = "getrusage(RUSAGE_THREAD) voluntary + involuntary switches (" + why + ")";
    } else if (event == ThreadEvent::cpu_migrations && sched_migrations()) {
      supported_[i] = true;
      fallback_start_[i] = *sched_migrations();
      how_[i] = "se.nr_migrations in /proc/thread-self/sched (" + why + ")";
    } else {
      how_[i] = "not supported: " + why;
    }
  }
}

ThreadCounters::~ThreadCounters() {
  for (int fd : fds_)
    if (fd >= 0) close(fd);
}

std::optional<std::uint64_t> ThreadCounters::read(ThreadEvent event) const {
  const auto i = static_cast<std::size_t>(event);
  if (!supported_[i]) return std::nullopt;
  if (fds_[i] >= 0) {
    std::uint64_t count = 0;
    if (::read(fds_[i], &count, sizeof count) != static_cast<ssize_t>(sizeof count))
      return std::nullopt;
    return count;
  }
  if (event == ThreadEvent::context_switches) return rusage_switches() - fallback_start_[i];
  auto now = sched_migrations();
  if (!now) return std::nullopt;
  return *now - fallback_start_[i];
}

const std::string& ThreadCounters::how(ThreadEvent event) const {
  return how_[static_cast<std::size_t>(event)];
}

bool ThreadCounters::supported(ThreadEvent event) const {
  return supported_[static_cast<std::size_t>(event)];
}

}  // namespace threadmap::experiments
