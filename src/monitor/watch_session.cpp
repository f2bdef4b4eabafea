#include "src/monitor/watch_session.hpp"

#include <algorithm>
#include <cerrno>

#include "src/os/monotonic_clock.hpp"
#include "src/os/perf_group.hpp"
#include "src/os/process.hpp"

namespace threadmap::monitor {
namespace {

bool stopping(const WatchSettings& s) { return s.stop_requested && s.stop_requested(); }

// A program we just started is still in the dynamic loader (and the pin library has not placed
// its main thread yet): its first sample waits this long, or one interval when that is shorter.
constexpr std::int64_t kFirstChildSampleNs = 100'000'000;

}  // namespace

Result<WatchResult> watch_process(pid_t pid, bool is_child, const WatchSettings& settings) {
  ThreadSampler sampler(pid);
  WatchResult out{WatchHistory(pid), {}, std::nullopt};
  const std::int64_t interval_ns = static_cast<std::int64_t>(settings.interval_ms) * 1000000;
  const std::int64_t start = os::monotonic_ns();
  // The watch ends exactly at --duration, even when that falls inside an interval.
  const std::int64_t end_by_duration =
      settings.duration_s > 0 ? start + static_cast<std::int64_t>(settings.duration_s * 1e9)
                              : INT64_MAX;
  std::int64_t next = is_child ? start + std::min(interval_ns, kFirstChildSampleNs) : start;
  std::int64_t ended = start;
  for (;;) {
    const std::int64_t wake = std::min(next, end_by_duration);
    if (is_child) {
      // Wakes at the program's exit, so its last stretch is counted to the end.
      auto exited = os::wait_for_exit_until(pid, wake, settings.stop_requested);
      if (!exited) return exited.error();
      if (*exited) {
        out.child_status = **exited;
        ended = os::monotonic_ns();
        break;
      }
    } else {
      os::sleep_until_ns(wake, settings.stop_requested);
    }
    auto sample = sampler.sample();
    ended = os::monotonic_ns();
    if (!sample) {
      if (sample.error().code.value() == ESRCH) break;
      return sample.error();
    }
    out.history.add(*sample);
    if (settings.on_sample) settings.on_sample(out.history);
    if (stopping(settings) || ended >= end_by_duration) break;
    while (next <= ended) next += interval_ns;  // a slow sample skips ticks, never bunches them
  }
  if (is_child && !out.child_status) {
    auto status = os::wait_for_exit(pid);
    if (!status) return status.error();
    out.child_status = *status;
  }
  if (!is_child && out.history.samples() == 0)
    return Error::from_errno(ESRCH, "no process " + std::to_string(pid));
  std::vector<std::optional<CpuSet>> planned;
  if (!settings.plan.empty()) planned = match_plan(out.history, settings.plan, settings.by_name);
  std::string note;
  os::hardware_counters_available(&note);
  out.summary =
      summarize_watch(out.history, planned, sampler.source(), sampler.hardware_counters(), note);
  // A program's summary covers its whole life as watched, up to the moment it exited, not just
  // first to last sample.
  if (is_child) out.summary.duration_s = static_cast<double>(ended - start) / 1e9;
  return out;
}

}  // namespace threadmap::monitor
