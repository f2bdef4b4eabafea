// Running a program to its end, the one place that decides what `run` and `watch -- CMD` do
// around it: start it, pass on the signals we receive, optionally watch its threads meanwhile,
// reap it, and combine its exit status with ours.
#pragma once

#include <optional>
#include <string>

#include "src/monitor/watch_session.hpp"
#include "src/os/process.hpp"
#include "src/plan/plan_file.hpp"
#include "threadmap/result.hpp"

namespace threadmap::apply {

/// How a program run ended.
struct ProgramOutcome {
  int exit_status = 0;  ///< the program's, in the shell's convention (128 + signal)
  /// With watch settings: what the watch saw, or why watching failed.
  std::optional<Result<monitor::WatchResult>> watched;
};

/// Starts `launch`, forwards SIGINT/SIGTERM/SIGHUP/... to it while it runs, watches it when
/// `watch` is given, and waits for it. Fails only when it cannot be started (use
/// os::start_failure_status for the shell's 127/126).
Result<ProgramOutcome> run_program(const os::LaunchSpec& launch,
                                   const std::optional<monitor::WatchSettings>& watch);

/// Watch settings for `interval_ms`, `duration_s` (0 = to the end) and, when `plan_path` is
/// given, the plan's CPUs per thread (matched by name with `by_name`). Fails when the plan cannot
/// be read, before anything starts.
Result<monitor::WatchSettings> watch_settings(int interval_ms, double duration_s,
                                              const std::string& plan_path, bool by_name);
/// The same from a plan already read (nullptr: no plan); cannot fail.
monitor::WatchSettings watch_settings(int interval_ms, double duration_s,
                                      const plan::PlanFile* plan, bool by_name);

/// The exit status of a threadmap command that ran a program: the program's status when it
/// failed (it is what scripts test), else 1 when our own part (watching, writing results)
/// failed, else 0.
int combined_exit_status(int program_status, bool our_part_ok);

}  // namespace threadmap::apply
