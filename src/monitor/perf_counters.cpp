// perf_event_open plumbing. Groups are read with PERF_FORMAT_GROUP so a sample costs one
// read(2) per thread per group — what keeps watching 1,000 threads cheap.
#include "src/monitor/perf_counters.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <utility>

namespace threadmap::monitor {
namespace {

long perf_open(perf_event_attr* attr, pid_t tid, int group_fd) {
  // Bounded EINTR retry (google/benchmark does the same).
  for (int attempt = 0; attempt < 5; ++attempt) {
    long fd = syscall(SYS_perf_event_open, attr, tid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0 || errno != EINTR) return fd;
  }
  return -1;
}

perf_event_attr make_attr(std::uint32_t type, std::uint64_t config) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = type;
  attr.config = config;
  attr.read_format = PERF_FORMAT_GROUP;
  attr.disabled = 0;
  attr.exclude_hv = 1;
  return attr;
}

// Opens a group (attrs[0] leads) into fds[]; returns 0, or -1 with errno and nothing open.
int open_group(pid_t tid, perf_event_attr* attrs, int* fds, int count) {
  for (int i = 0; i < count; ++i) {
    long fd = perf_open(&attrs[i], tid, i == 0 ? -1 : fds[0]);
    if (fd < 0) {
      int saved = errno;
      for (int j = 0; j < i; ++j) {
        close(fds[j]);
        fds[j] = -1;
      }
      errno = saved;
      return -1;
    }
    fds[i] = static_cast<int>(fd);
  }
  return 0;
}

std::uint64_t cache_config(std::uint64_t cache, std::uint64_t result) {
  return cache | (PERF_COUNT_HW_CACHE_OP_READ << 8) | (result << 16);
}

}  // namespace

ThreadCounters::~ThreadCounters() { close_all(); }

ThreadCounters::ThreadCounters(ThreadCounters&& other) noexcept { take(other); }

ThreadCounters& ThreadCounters::operator=(ThreadCounters&& other) noexcept {
  if (this != &other) {
    close_all();
    take(other);
  }
  return *this;
}

void ThreadCounters::take(ThreadCounters& other) {
  for (int i = 0; i < 3; ++i) std::swap(software_[i], other.software_[i]);
  for (int i = 0; i < 4; ++i) std::swap(hardware_[i], other.hardware_[i]);
}

void ThreadCounters::close_all() {
  for (int& fd : software_) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
  for (int& fd : hardware_) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
}

Result<ThreadCounters> ThreadCounters::open(pid_t tid, bool hardware) {
  ThreadCounters counters;
  perf_event_attr sw[3] = {make_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK),
                           make_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS),
                           make_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES)};
  if (open_group(tid, sw, counters.software_, 3) != 0)
    return Error::from_errno(errno, "perf_event_open for tid " + std::to_string(tid) + ": " +
                                        std::strerror(errno));
  if (hardware) {
    perf_event_attr hw[4] = {
        make_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES),
        make_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS),
        make_attr(PERF_TYPE_HW_CACHE,
                  cache_config(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_RESULT_MISS)),
        make_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES)};
    for (auto& a : hw) a.exclude_kernel = 1;
    (void)open_group(tid, hw, counters.hardware_, 4);  // missing PMU: software counters only
  }
  return counters;
}

Result<SoftwareCounts> ThreadCounters::read_software() const {
  std::uint64_t buf[1 + 3] = {};
  ssize_t n = ::read(software_[0], buf, sizeof buf);
  if (n != static_cast<ssize_t>(sizeof buf) || buf[0] != 3)
    return Error::from_errno(n < 0 ? errno : EIO, "cannot read perf counters");
  return SoftwareCounts{buf[1], buf[2], buf[3]};
}

std::optional<HardwareCounts> ThreadCounters::read_hardware() const {
  if (hardware_[0] < 0) return std::nullopt;
  std::uint64_t buf[1 + 4] = {};
  ssize_t n = ::read(hardware_[0], buf, sizeof buf);
  if (n != static_cast<ssize_t>(sizeof buf) || buf[0] != 4) return std::nullopt;
  return HardwareCounts{buf[1], buf[2], buf[3], buf[4]};
}

bool hardware_counters_available(std::string* why) {
  static std::once_flag once;
  static bool available = false;
  static std::string reason;
  std::call_once(once, [] {
    perf_event_attr attr = make_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
    attr.exclude_kernel = 1;
    long fd = perf_open(&attr, 0, -1);
    if (fd >= 0) {
      available = true;
      close(static_cast<int>(fd));
    } else {
      reason = std::string("no hardware counters (perf_event_open cycles: ") +
               std::strerror(errno) + ")";
    }
  });
  if (why) *why = reason;
  return available;
}

}  // namespace threadmap::monitor
