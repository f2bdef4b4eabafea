#include "src/monitor/thread_counters.hpp"

#include <cerrno>

#include "src/os/proc_parse.hpp"

namespace threadmap::monitor {
namespace {

const std::vector<os::PerfEvent> kSoftware = {
    os::PerfEvent::task_clock, os::PerfEvent::cpu_migrations, os::PerfEvent::context_switches};
const std::vector<os::PerfEvent> kHardware = {
    os::PerfEvent::cycles, os::PerfEvent::instructions, os::PerfEvent::l1d_read_misses,
    os::PerfEvent::llc_misses, os::PerfEvent::dtlb_read_misses};

std::string sched_path(const CounterTarget& t) {
  return t.pid == 0 && t.tid == 0 ? os::own_thread_path("sched")
                                  : os::task_path(t.pid, t.tid, "sched");
}

// The sched file's counts, or empty when it cannot be read or lacks the migration count.
std::optional<SoftwareCounts> read_sched(const os::ProcFile& file) {
  char buf[4096];
  if (file.read(buf, sizeof buf) <= 0) return std::nullopt;
  os::TaskSched sched = os::parse_task_sched(buf);
  if (!sched.migrations) return std::nullopt;
  return SoftwareCounts{sched.runtime_ns.value_or(0), *sched.migrations,
                        sched.switches.value_or(0)};
}

}  // namespace

const char* counter_source_name(CounterSource source) {
  switch (source) {
    case CounterSource::perf:
      return "perf_event_open software counters";
    case CounterSource::sched:
      return "procfs sched file (/proc/PID/task/TID/sched)";
    case CounterSource::observed:
      return "CPU changes seen between samples (lower bound)";
  }
  return "?";
}

Result<ThreadCounters> ThreadCounters::open(const CounterTarget& target) {
  ThreadCounters c;
  const pid_t perf_tid = target.tid;  // 0 = the calling thread
  if (target.use_perf) {
    auto software = os::PerfGroup::open(perf_tid, kSoftware);
    if (software) {
      c.software_ = std::move(*software);
      c.source_ = CounterSource::perf;
    } else if (software.error().code.value() == ESRCH) {
      return software.error();
    } else {
      c.why_not_perf_ = software.error().message;
    }
  } else {
    c.why_not_perf_ = "perf counters not requested";
  }
  if (c.source_ != CounterSource::perf) {
    c.sched_ = os::ProcFile(sched_path(target));
    std::optional<SoftwareCounts> base;
    if (c.sched_.valid()) base = read_sched(c.sched_);
    if (base) {
      c.sched_base_ = *base;
      c.source_ = CounterSource::sched;
    } else {
      c.sched_ = os::ProcFile();
    }
  }
  if (!target.hardware) {
    c.why_no_hardware_ = "hardware counters not requested";
  } else if (std::string why; !hardware_counters_available(&why)) {
    c.why_no_hardware_ = why;
  } else if (auto hardware = os::PerfGroup::open(perf_tid, kHardware)) {
    c.hardware_ = std::move(*hardware);
  } else {
    c.why_no_hardware_ = hardware.error().message;
  }
  return c;
}

Result<SoftwareCounts> ThreadCounters::read_software() const {
  if (source_ == CounterSource::perf) {
    auto v = software_.read();
    if (!v) return v.error();
    return SoftwareCounts{(*v)[0], (*v)[1], (*v)[2]};
  }
  if (source_ == CounterSource::sched) {
    auto now = read_sched(sched_);
    if (!now) return Error::from_errno(ESRCH, "the thread is gone");
    return SoftwareCounts{now->task_clock_ns - sched_base_.task_clock_ns,
                          now->migrations - sched_base_.migrations,
                          now->context_switches - sched_base_.context_switches};
  }
  return Error::from_errno(ENOTSUP, "no counters for this thread: " + why_not_perf_);
}

std::optional<HardwareCounts> ThreadCounters::read_hardware() const {
  if (!hardware_.is_open()) return std::nullopt;
  auto v = hardware_.read();
  if (!v) return std::nullopt;
  return HardwareCounts{(*v)[0], (*v)[1], (*v)[2], (*v)[3], (*v)[4]};
}

bool hardware_counters_available(std::string* why) { return os::hardware_counters_available(why); }

}  // namespace threadmap::monitor
