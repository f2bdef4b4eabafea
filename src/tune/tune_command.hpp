// `threadmap tune` as given, as checked and as one library call: TuneOptions holds the command
// line's values (one member per flag, no flag names), tune_request() applies every default and
// every rule about which options go together into a TuneCommand (its only source), and
// run_tune_command() makes the candidates for this machine (or for a job under a launcher),
// runs the interleaved loop, judges it and writes the lines that reproduce what tune
// recommends. The CLI parses, calls both, and prints.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/tune/tune_run.hpp"
#include "threadmap/result.hpp"

namespace threadmap::tune {

/// The options of `threadmap tune`, as given. One member per flag; a flag not given leaves its
/// member default-constructed. Errors name these members in Error::input.
struct TuneOptions {
  std::string candidates;            ///< --candidates LIST (comma-separated); "": the default set
  std::string metric;                ///< --metric wall|cpu|REGEX; "": wall
  bool higher = false;               ///< --higher
  bool lower = false;                ///< --lower
  std::string budget;                ///< --budget DURATION (duration.hpp); "": 60s
  std::optional<int> runs;           ///< --runs N
  bool thread_cache = false;         ///< --thread-cache
  std::string ranks;                 ///< --ranks auto
  std::string launcher;              ///< --launcher 'LAUNCHER ARGS', one string
  std::vector<std::string> command;  ///< CMD ARGS, the words after --

  bool operator==(const TuneOptions&) const = default;
};

/// `threadmap tune` checked: made only by tune_request (no public constructor).
struct TuneCommand {
 private:
  friend Result<TuneCommand> tune_request(const TuneOptions& options);
  TuneCommand() = default;

 public:
  std::string candidates;             ///< the list as given ("" = the default set)
  Metric metric;                      ///< parsed, with its direction
  double budget_s = 60;               ///< wall time for all runs
  int runs = 5;                       ///< rounds before the loop may stop
  bool thread_cache = false;          ///< also every candidate with the thread cache
  std::vector<std::string> launcher;  ///< a job's launcher, split into words; empty: no job
  std::vector<std::string> command;   ///< the program and its arguments
  std::function<void(const Progress&)> progress;  ///< after every kept run; may be empty
};

/// Checks `options`. Refuses with Fault::input, naming the member: no command (`command`); a
/// metric that is not wall, cpu or a regular expression with one group, or a regex without a
/// direction (`metric`; without one: `higher`); a direction that cannot work (`higher`, `lower`); a
/// budget that is not a duration above 0 (`budget`); ranks other than "auto", or without a
/// launcher (`ranks`); a launcher without ranks or with an unclosed quote (`launcher`).
Result<TuneCommand> tune_request(const TuneOptions& options);

/// What tune found, and what the CLI prints.
struct TuneReport {
  TuneResult result;
  /// The lines that reproduce best (reproduce_lines), "" when best is os.
  std::string reproduce;
};

/// Runs a checked `threadmap tune`: the candidates (a list that cannot be made here is about
/// `candidates`: an unknown name or CPUs this machine lacks Fault::input, a plan that cannot be
/// read the work's), the topology's error when this machine cannot be read, then as run_tune
/// does (a metric that never matched, a program that fails under every candidate).
Result<TuneReport> run_tune_command(const TuneCommand& command);

}  // namespace threadmap::tune
