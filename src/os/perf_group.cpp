#include "src/os/perf_group.hpp"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <utility>

namespace threadmap::os {
namespace {

constexpr std::uint64_t cache_miss(std::uint64_t cache) {
  return cache | (PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
}

// perf type and config of each PerfEvent, in enum order.
struct EventCode {
  std::uint32_t type;
  std::uint64_t config;
};
constexpr EventCode kEventCodes[] = {
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {PERF_TYPE_HW_CACHE, cache_miss(PERF_COUNT_HW_CACHE_L1D)},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {PERF_TYPE_HW_CACHE, cache_miss(PERF_COUNT_HW_CACHE_DTLB)},
};

perf_event_attr attr_for(PerfEvent event, bool group_read) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.exclude_hv = 1;
  if (group_read) attr.read_format = PERF_FORMAT_GROUP;
  const EventCode& code = kEventCodes[static_cast<std::size_t>(event)];
  attr.type = code.type;
  attr.config = code.config;
  // A context switch happens in the kernel: software events count kernel time; hardware events
  // count the thread's own (user) work only.
  attr.exclude_kernel = is_hardware_event(event) ? 1 : 0;
  return attr;
}

long perf_open(perf_event_attr* attr, pid_t tid, int group_fd) {
  // Bounded EINTR retry (google/benchmark does the same).
  for (int attempt = 0; attempt < 5; ++attempt) {
    long fd = syscall(SYS_perf_event_open, attr, tid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0 || errno != EINTR) return fd;
  }
  return -1;
}

}  // namespace

bool is_hardware_event(PerfEvent event) {
  return event != PerfEvent::task_clock && event != PerfEvent::cpu_migrations &&
         event != PerfEvent::context_switches;
}

PerfGroup::~PerfGroup() { close_all(); }

PerfGroup::PerfGroup(PerfGroup&& other) noexcept : fds_(std::move(other.fds_)) {
  other.fds_.clear();
}

PerfGroup& PerfGroup::operator=(PerfGroup&& other) noexcept {
  if (this != &other) {
    close_all();
    fds_ = std::move(other.fds_);
    other.fds_.clear();
  }
  return *this;
}

void PerfGroup::close_all() {
  for (int fd : fds_) ::close(fd);
  fds_.clear();
}

Result<PerfGroup> PerfGroup::open(pid_t tid, const std::vector<PerfEvent>& events) {
  PerfGroup group;
  for (PerfEvent event : events) {
    perf_event_attr attr = attr_for(event, true);
    long fd = perf_open(&attr, tid, group.fds_.empty() ? -1 : group.fds_[0]);
    if (fd < 0) {
      int e = errno;
      group.close_all();
      return Error::from_errno(
          e, "perf_event_open for " +
                 (tid == 0 ? std::string("this thread") : "tid " + std::to_string(tid)) + ": " +
                 std::strerror(e));
    }
    group.fds_.push_back(static_cast<int>(fd));
  }
  return group;
}

Result<std::vector<std::uint64_t>> PerfGroup::read() const {
  if (fds_.empty()) return Error::from_errno(EBADF, "perf counters are not open");
  std::vector<std::uint64_t> buf(1 + fds_.size());
  const ssize_t want = static_cast<ssize_t>(buf.size() * sizeof(std::uint64_t));
  ssize_t n;
  do {
    n = ::read(fds_[0], buf.data(), static_cast<std::size_t>(want));
  } while (n < 0 && errno == EINTR);
  if (n != want || buf[0] != fds_.size())
    return Error::from_errno(n < 0 ? errno : EIO, "cannot read perf counters");
  return std::vector<std::uint64_t>(buf.begin() + 1, buf.end());
}

bool hardware_counters_available(std::string* why) {
  static std::once_flag once;
  static bool available = false;
  static std::string reason;
  std::call_once(once, [] {
    perf_event_attr attr = attr_for(PerfEvent::cycles, false);
    long fd = perf_open(&attr, 0, -1);
    if (fd >= 0) {
      available = true;
      ::close(static_cast<int>(fd));
    } else {
      reason = std::string("no hardware counters (perf_event_open cycles: ") +
               std::strerror(errno) + ")";
    }
  });
  if (why) *why = reason;
  return available;
}

}  // namespace threadmap::os
