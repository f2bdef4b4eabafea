#include "src/monitor/watch_session.hpp"

#include <algorithm>
#include <cerrno>

#include "src/os/monotonic_clock.hpp"
#include "src/os/numa_maps.hpp"
#include "src/os/perf_group.hpp"
#include "src/os/process.hpp"

namespace threadmap::monitor {
namespace {

bool stopping(const WatchSettings& s) { return s.stop_requested && s.stop_requested(); }

// A program we just started is still in the dynamic loader (and the pin library has not placed
// its main thread yet): its first sample waits this long, or one interval when that is shorter.
constexpr std::int64_t kFirstChildSampleNs = 100'000'000;

// Readings of /proc/PID/numa_maps: the first at the first sample, then again at later samples
// while the reads stay cheap (the kernel walks the page tables under the process's mmap lock,
// so a big process is read at most once per 50 times its read cost), so the last reading is
// close to the end even when the program exits between two samples.
class NumaReadings {
 public:
  explicit NumaReadings(pid_t pid, std::int64_t start) : pid_(pid), start_(start) {}
  void maybe_read(std::int64_t now, std::int64_t interval_ns, bool force) {
    if (failed_) return;
    if (!force && last_read_ >= 0 && now - last_read_ < std::max(interval_ns, 50 * last_cost_))
      return;
    auto pages = os::read_numa_pages(pid_);
    const std::int64_t after = os::monotonic_ns();
    last_read_ = after;
    last_cost_ = after - now;
    if (!pages) {
      // A process that is gone keeps its last reading; no first reading means no section.
      if (!first_) {
        failed_ = true;
        note_ = pages.error().message;
      }
      return;
    }
    const double at = static_cast<double>(now - start_) / 1e9;
    if (!first_) {
      first_ = *pages;
      first_s_ = at;
    }
    last_ = std::move(*pages);
    last_s_ = at;
  }
  void fill(WatchSummary& s) const {
    s.numa_start = first_;
    s.numa_end = last_;
    s.numa_start_s = first_s_;
    s.numa_end_s = last_s_;
    s.numa_source = os::numa_maps_path(pid_);
    s.numa_note = first_ ? "" : (note_.empty() ? "no reading (no sample was taken)" : note_);
  }

 private:
  pid_t pid_;
  std::int64_t start_;
  std::int64_t last_read_ = -1, last_cost_ = 0;
  bool failed_ = false;
  std::string note_;
  std::optional<os::NumaPages> first_, last_;
  double first_s_ = 0, last_s_ = 0;
};

}  // namespace

Result<WatchResult> watch_process(pid_t pid, bool is_child, const WatchSettings& settings) {
  ProcessTreeSampler sampler(pid, settings.follow);
  WatchResult out{WatchHistory(pid, settings.follow.follow), {}, std::nullopt};
  const std::int64_t interval_ns = static_cast<std::int64_t>(settings.interval_ms) * 1000000;
  const std::int64_t start = os::monotonic_ns();
  // The watch ends exactly at --duration, even when that falls inside an interval.
  const std::int64_t end_by_duration =
      settings.duration_s > 0 ? start + static_cast<std::int64_t>(settings.duration_s * 1e9)
                              : INT64_MAX;
  std::int64_t next = is_child ? start + std::min(interval_ns, kFirstChildSampleNs) : start;
  std::int64_t ended = start;
  NumaReadings numa(pid, start);
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
    out.history.add(*sample, sampler.processes());
    numa.maybe_read(ended, interval_ns, /*force=*/false);
    if (settings.on_sample) settings.on_sample(out.history);
    if (stopping(settings) || ended >= end_by_duration) break;
    while (next <= ended) next += interval_ns;  // a slow sample skips ticks, never bunches them
  }
  // A process still running at the end (a watch that stopped) is read once more, at its end.
  if (!out.child_status && out.history.samples() > 0)
    numa.maybe_read(os::monotonic_ns(), interval_ns, /*force=*/true);
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
  if (settings.follow.follow) {
    out.summary.max_processes = settings.follow.max_processes;
    out.summary.processes_not_followed = sampler.processes_not_followed();
  }
  numa.fill(out.summary);
  return out;
}

}  // namespace threadmap::monitor
