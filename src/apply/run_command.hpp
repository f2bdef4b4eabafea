// `threadmap run` as one call: the checked command (run_options.hpp) prepared on this machine,
// the program run to its end (watched when asked) and what happened returned for the CLI to
// print. `run --ranks` (cluster/rank_command) wraps the same steps around the rank's share and
// record, so each step is public here; the plain path is run_command().
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "src/apply/cache_stats.hpp"
#include "src/apply/run_options.hpp"
#include "src/monitor/watch_session.hpp"
#include "src/os/process.hpp"
#include "threadmap/result.hpp"

namespace threadmap::apply {

/// What a caller hands a run besides the command. The library does not print, and the writer
/// of the watch document belongs to render, above cluster: both come in from the caller.
struct RunHooks {
  /// Shown before the program starts (with --verbose: the rank's placement, the memory
  /// policy), so the lines come before the program's own output. Empty: not shown.
  std::function<void(const std::string&)> note;
  /// The watch as the threadmap.watch/1 text a rank record carries. Empty: the record has none.
  std::function<std::string(const monitor::WatchResult&)> watch_document;
};

/// What a run that started its program ended with. A run that did not start it is an Error:
/// Fault::input (the command line cannot work), Fault::work (a plan unreadable, a library
/// missing) or Fault::start (the program could not be started: the shell's 127 or 126).
struct RunReport {
  int exit_status = 0;  ///< the program's (128 + signal when a signal ended it)
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
  os::LaunchSpec launch;
  std::optional<monitor::WatchSettings> watch;
  bool cache_stats = false;  ///< run_prepared gives the program TM_CACHE_STATS=FILE and reads it
};

/// The command's launch built on this machine (prepare_run: its errors name the member), the
/// memory policy noted (verbose), and the watch settings made when the command watches or
/// `watch_for_record` asks for a watch anyway. The plan is read once.
Result<PreparedRun> prepare_command(const RunCommand& command, const RunHooks& hooks,
                                    bool watch_for_record);

/// Starts the prepared program, watches it when asked, and waits for its end. A program that
/// cannot be started is an Error with Fault::start. With `cache_stats`, the statistics file is
/// created before the start (a failure to create it is the work's fault), read and summed after
/// the end, and removed.
Result<RunReport> run_prepared(const PreparedRun& prepared);

/// `threadmap run` without ranks: prepare_command, then run_prepared.
Result<RunReport> run_command(const RunCommand& command, const RunHooks& hooks = {});

}  // namespace threadmap::apply
