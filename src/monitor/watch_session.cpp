#include "src/monitor/watch_session.hpp"

#include <cerrno>

#include "src/os/monotonic_clock.hpp"
#include "src/os/process.hpp"
#include "src/os/perf_group.hpp"

namespace threadmap::monitor {
namespace {

bool stopping(const WatchSettings& s) { return s.stop_requested && s.stop_requested(); }

}  // namespace

Result<WatchResult> watch_process(pid_t pid, bool is_child, const WatchSettings& settings) {
  ThreadSampler sampler(pid);
  WatchResult out{WatchHistory(pid), {}, std::nullopt};
  const std::int64_t interval_ns = static_cast<std::int64_t>(settings.interval_ms) * 1000000;
  const std::int64_t start = os::monotonic_ns();
  std::int64_t next = start;
  auto sleep_to_next = [&] {
    next += interval_ns;
    os::sleep_until_ns(next, settings.stop_requested);
  };
  if (is_child) sleep_to_next();
  for (;;) {
    if (is_child) {
      auto exited = os::poll_exit(pid);
      if (!exited) return exited.error();
      if (*exited) {
        out.child_status = **exited;
        break;
      }
    }
    auto sample = sampler.sample();
    if (!sample) {
      if (sample.error().code.value() == ESRCH) break;
      return sample.error();
    }
    out.history.add(*sample);
    if (settings.on_sample) settings.on_sample(out.history);
    if (stopping(settings)) break;
    if (settings.duration_s > 0 &&
        static_cast<double>(os::monotonic_ns() - start) / 1e9 >= settings.duration_s)
      break;
    sleep_to_next();
    if (stopping(settings)) break;
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
  out.summary = summarize_watch(out.history, planned, sampler.source(),
                                sampler.hardware_counters(), note);
  return out;
}

}  // namespace threadmap::monitor
