// `threadmap tune` as one library call: the options as the command line gave them (values, no
// flag names) -> the checks of which options go together -> the candidates for this machine
// (or for a job under a launcher) -> the interleaved loop -> the verdicts -> the lines that
// reproduce what tune recommends. The CLI parses, calls run_tune_command, and prints.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "src/tune/tune_run.hpp"
#include "threadmap/result.hpp"

namespace threadmap::tune {

/// What `threadmap tune` was asked, as values.
struct TuneRequest {
  std::string candidates;       ///< comma-separated names; empty = the default set
  std::string metric = "wall";  ///< wall, cpu, or a regular expression with one group
  bool higher = false;          ///< with a regex: a higher number is better
  bool lower = false;           ///< with a regex: a lower number is better
  std::string budget = "60s";   ///< a duration (duration.hpp)
  int runs = 5;                 ///< rounds before the loop may stop
  bool thread_cache = false;    ///< also every candidate with the thread cache
  std::string ranks;            ///< "auto": tune the per-rank placement of a job
  std::string launcher;         ///< with ranks: the launcher and its options, one string
  std::vector<std::string> command;
  std::function<void(const Progress&)> progress;  ///< after every kept run; may be empty
};

/// Which part of a TuneRequest an error is about, so the CLI can name its flag.
enum class TuneField { none, command, metric, direction, budget, ranks, launcher, candidates };

/// What tune found, and what the CLI prints.
struct TuneReport {
  TuneResult result;
  /// The lines that reproduce best (reproduce_lines), "" when best is os.
  std::string reproduce;
};

/// Runs `threadmap tune`. Fails before anything runs (with `*field` set when the error is
/// about a request value: EINVAL) on no command, a bad metric or budget, ranks other than
/// "auto", ranks without a launcher or a launcher without ranks, a launcher with an unclosed
/// quote, and a bad candidate list; with the topology's error when this machine cannot be read;
/// then as run_tune does (a metric that never matched, a program that fails under every
/// candidate).
Result<TuneReport> run_tune_command(const TuneRequest& request, TuneField* field = nullptr);

}  // namespace threadmap::tune
