// `threadmap run` as one call: the options checked, the launch prepared on this machine, the
// program run to its end (watched when asked) and what happened returned for the CLI to print.
// `run --ranks` (cluster/rank_command) wraps the same steps around the rank's share and record,
// so each step is public here; the plain path is run_command().
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "src/apply/cache_stats.hpp"
#include "src/apply/run_request.hpp"
#include "src/monitor/watch_session.hpp"
#include "src/os/process.hpp"
#include "threadmap/result.hpp"

namespace threadmap::apply {

/// The whole `threadmap run` command as values.
struct RunCommand {
  RunRequest request;
  bool watch = false;           ///< watch the program's threads; the caller shows the summary
  int interval_ms = 100;        ///< the watch's sampling interval
  bool interval_given = false;  ///< an interval was given: it applies to the watch only
  /// The watch follows the program's descendants too (forked children, what they exec), as
  /// `watch --follow` does; it applies to the watch only.
  bool follow = false;
  bool policy_given = false;  ///< a policy was given: it applies to a CPU list only
  /// With the thread cache: every process of the run writes its statistics line to a private
  /// temporary file (TM_CACHE_STATS=FILE), summed after the program ends (RunReport).
  bool stats = false;
  /// Shown before the program starts (with request.verbose: the rank's placement, the memory
  /// policy). The library does not print: the caller does, so the lines come before the
  /// program's own output. Empty: not shown.
  std::function<void(const std::string&)> note;
};

/// How a command that stopped before its program ran is reported.
enum class RunStopKind {
  usage,    ///< the command line cannot work (exit 2): nothing was read or run
  failure,  ///< the work failed before the start (exit 1): a plan unreadable, a library missing
  start,    ///< the program could not be started (os::start_failure_status: 127 or 126)
};

/// Why the program did not run. `error` describes the value; `field`, when not none, is the
/// option it is about, for the caller to name ("bad --plan: ...").
struct RunStop {
  RunStopKind kind = RunStopKind::usage;
  RunField field = RunField::none;
  Error error;
};

/// What a run ended with.
struct RunReport {
  std::optional<RunStop> stopped;  ///< set: the program did not run and nothing below is set
  int exit_status = 0;             ///< the program's (128 + signal when a signal ended it)
  /// With a watch (asked for, or for a record): what it saw, or why watching failed.
  std::optional<Result<monitor::WatchResult>> watched;
  /// An output of ours written after the run (the rank record) that could not be written; the
  /// program ran regardless.
  std::optional<Error> output_error;
  /// With `stats`: the thread cache's statistics of every process of the run, or why they could
  /// not be read.
  std::optional<Result<CacheStatsSummary>> cache_stats;
};

/// A checked command, ready to start.
struct PreparedRun {
  std::optional<RunStop> stopped;  ///< set: refused, nothing below is set
  os::LaunchSpec launch;
  std::optional<monitor::WatchSettings> watch;
  bool cache_stats = false;  ///< run_prepared gives the program TM_CACHE_STATS=FILE and reads it
};

/// The first check, from the options alone: an interval or --follow without a watch, or --stats
/// without the thread cache, would be silently ignored, so it is refused (usage). nullopt:
/// nothing to refuse.
std::optional<RunStop> refuse_unused_options(const RunCommand& command);

/// A policy without a CPU list refused (usage), the request validated and its launch built on
/// this machine (prepare_run: a bad value is usage, an unreadable plan or a missing library a
/// failure), the memory policy noted (verbose), and the watch settings made when the command
/// watches or `watch_for_record` asks for a watch anyway. The plan is read once.
PreparedRun prepare_command(const RunCommand& command, bool watch_for_record);

/// Starts the prepared program, watches it when asked, and waits for its end. A program that
/// cannot be started is a stop of kind `start`. With `cache_stats`, the statistics file is
/// created before the start (a failure to create it is a stop of kind `failure`), read and
/// summed after the end, and removed.
RunReport run_prepared(const PreparedRun& prepared);

/// `threadmap run` without ranks: refuse_unused_options, prepare_command, run_prepared.
RunReport run_command(const RunCommand& command);

}  // namespace threadmap::apply
