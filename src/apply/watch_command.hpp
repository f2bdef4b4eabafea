// `threadmap watch` as given, as checked and as one call: WatchOptions holds the command line's
// values (one member per flag, nothing computed); watch_request() applies every default and
// every rule about which options go together; watch_command() reads the plan (when one is
// given, before anything starts) and watches the process, or starts the program and watches it
// to its end (apply::run_program, the launcher `run` uses). The CLI shows the live table and
// prints the summary.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/apply/cache_stats.hpp"
#include "src/monitor/watch_session.hpp"
#include "threadmap/result.hpp"

namespace threadmap::apply {

/// The options of `threadmap watch`, as given. One member per flag or positional (named beside
/// it); not given leaves it default-constructed. Errors name these members in Error::input.
struct WatchOptions {
  std::vector<std::string> pid;      ///< PID: the words before -- (one at most)
  std::vector<std::string> command;  ///< CMD ARGS: the words after --
  bool follow = false;               ///< --follow
  std::optional<int> interval_ms;    ///< --interval MS
  std::optional<double> duration_s;  ///< --duration S
  std::string plan_path;             ///< --plan FILE
  bool by_name = false;              ///< --by-name
};

struct WatchCommand;
Result<WatchCommand> watch_request(const WatchOptions& options);

/// `threadmap watch` checked: made only by watch_request (no public constructor).
struct WatchCommand {
 private:
  friend Result<WatchCommand> watch_request(const WatchOptions& options);
  WatchCommand() = default;

 public:
  pid_t pid = 0;                     ///< the process to watch; 0: start `command`
  std::vector<std::string> command;  ///< the program to start and watch (pid 0)
  int interval_ms = 100;             ///< between samples
  double duration_s = 0;             ///< stop after this long; 0: until it exits or Ctrl-C
  std::string plan_path;             ///< plan to check the threads against; empty: none
  bool by_name = false;              ///< match the plan's threads by name
  bool follow = false;               ///< follow the processes it starts too
};

/// Checks `options` into a WatchCommand. Refuses with Fault::input, naming the member: neither
/// a PID nor a command, or both; more than one PID; a PID that is not a positive integer;
/// matching by name without a plan.
Result<WatchCommand> watch_request(const WatchOptions& options);

/// What a watch ended with.
struct WatchReport {
  /// With a program started: its exit status (128 + signal when a signal ended it).
  std::optional<int> program_status;
  /// What the watch saw, or why watching failed (the process gone, a sample unreadable).
  std::optional<Result<monitor::WatchResult>> watched;
  /// A process watched by id that runs under the thread cache with TM_CACHE_STATS=FILE: the
  /// file, and the cache's counts for the watched processes read from it at the watch's end
  /// (logical creates, served by parked threads; or why the file could not be read).
  std::string cache_stats_file;
  std::optional<Result<CacheStatsSummary>> cache_stats;
};

/// Reads the plan (unreadable or malformed: the work's fault, about `plan_path`, before
/// anything starts), then watches `command.pid` until it exits, the duration ends or Ctrl-C
/// (which ends the watch, not threadmap), or starts `command.command` and watches it to its end
/// (a program that cannot be started is Fault::start). `on_sample`, when set, is called after
/// every sample (the live table). `note`, when set, receives a line to show before the program
/// starts (a program no preload can load into: watch_static_warning).
Result<WatchReport> watch_command(
    const WatchCommand& command, const std::function<void(const monitor::WatchHistory&)>& on_sample,
    const std::function<void(const std::string&)>& note = {});

}  // namespace threadmap::apply
