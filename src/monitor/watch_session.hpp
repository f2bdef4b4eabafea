// One watch, start to finish: sample a process at a fixed interval until it exits (a program we
// started is reaped), the duration passes or the caller asks to stop, then summarize. This is
// the loop behind `threadmap watch` and `threadmap run --watch`; the CLI only renders.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <vector>

#include "src/monitor/process_tree_sampler.hpp"
#include "src/monitor/thread_sampler.hpp"
#include "src/monitor/watch_history.hpp"
#include "threadmap/result.hpp"

namespace threadmap::monitor {

/// How to watch.
struct WatchSettings {
  int interval_ms = 100;            ///< between samples
  double duration_s = 0;            ///< stop after this long; 0 = until the process exits or stop
  std::vector<PlannedThread> plan;  ///< planned CPUs per thread (empty: no plan)
  bool by_name = false;             ///< match plan entries to thread names (match_plan)
  /// Follow the process's descendants too (forked children and what they exec), up to
  /// follow.max_processes; the plan and the NUMA pages stay the watched process's own.
  FollowOptions follow;
  /// Called after every sample (a live table); may be empty.
  std::function<void(const WatchHistory&)> on_sample;
  /// Polled between samples; true ends the watch early (Ctrl-C). May be null.
  bool (*stop_requested)() = nullptr;
};

/// What a watch saw.
struct WatchResult {
  WatchHistory history;
  WatchSummary summary;
  std::optional<int> child_status;  ///< the started program's exit status (watch of a child)
};

/// Watches process `pid`. When `is_child` (a program this process started), the first sample
/// is taken one interval after the start (the program is still in the dynamic loader before,
/// and the pin library has not placed its main thread yet) and the child is reaped at its end.
/// Fails with ESRCH naming the pid when there is no such process (nothing was sampled), or with
/// the sampler's error.
Result<WatchResult> watch_process(pid_t pid, bool is_child, const WatchSettings& settings);

}  // namespace threadmap::monitor
