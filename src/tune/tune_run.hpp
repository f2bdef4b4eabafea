// The closed loop of `threadmap tune`: run the user's unmodified program under every candidate
// placement, interleaved (A B C, C B A, A B C ... so slow drift is spread over all of them), add
// rounds while the verdict between the leaders is unclear and more runs could settle it and the
// budget allows, and judge each candidate against no placement ("os") and against the leader
// with core/verdict's stated rule for rounds (the paired rule on per-round ratios beside the
// unpaired one: sample i of every candidate ran in round i). A failing candidate is reported and
// never ranked; a run the machine disturbed (busy neighbours, steal) is repeated once, then kept
// and marked.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "src/core/machine_state.hpp"
#include "src/core/verdict.hpp"
#include "src/tune/candidates.hpp"
#include "src/tune/metric.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::tune {

/// What one candidate gave.
struct CandidateResult {
  Candidate candidate;
  std::string how;              ///< the run line (run_line)
  std::vector<double> samples;  ///< the metric, one per kept run
  std::vector<double> wall_s;   ///< wall time of the same runs (for the estimate)
  int repeated = 0;             ///< runs dropped and run again because the machine was busy
  int disturbed_kept = 0;       ///< kept although the machine was busy (marked)
  /// Per kept sample, in round order: whether the machine was busy around it. A round in which
  /// either side of a comparison was disturbed is left out of that comparison's verdict (empty:
  /// none was).
  std::vector<bool> disturbed;
  bool failed = false;         ///< a run exited non-zero (or printed no metric): not ranked
  std::string failure;         ///< "exit 3 on run 2" + the program's last lines
  MachineState machine_state;  ///< the busiest state seen around its runs
  std::string first_output;    ///< its first recorded (or failing) run's output
  bool first_output_truncated = false;
  MedianInterval interval;  ///< median and its 95% interval
  Verdict vs_os;            ///< this candidate against the os candidate
  Verdict vs_leader;        ///< this candidate against the leader (the loop's rule)
  Verdict vs_best;          ///< this candidate against `best` (= vs_os when best is os)
};

/// An index into TuneResult::candidates that names none.
inline constexpr std::size_t kNoCandidate = static_cast<std::size_t>(-1);

/// Progress of the loop, for the CLI to print on stderr.
struct Progress {
  std::string candidate;
  int round = 0;  ///< 1-based
  int min_rounds = 0;
  double value = 0;        ///< this run's metric
  bool disturbed = false;  ///< the machine was busy around it
  double elapsed_s = 0;
  double estimate_s = 0;  ///< time still expected: to the minimum rounds, or to the budget
  std::string unit;       ///< the metric's unit ("s", "" for a printed number)
};

struct TuneSettings {
  double budget_s = 60;  ///< wall time for all runs; binds after the first full round
  int min_rounds = 5;    ///< 5 rounds is the least that can be clear (verdict.hpp)
  int max_rounds = 40;
  int repeat_disturbed = 1;  ///< times a busy run is dropped and run again (not under lasting
                             ///< load: when the run before was busy too, it is kept and marked)
  int idle_window_ms = 50;   ///< before each run: how long to watch what the neighbours do
  VerdictOptions verdict;
  std::function<void(const Progress&)> progress;
};

struct TuneResult {
  Metric metric;
  std::vector<CandidateResult> candidates;  ///< in the set's order, the os candidate first
  std::vector<std::string> notes;           ///< from the candidate set, and the loop's own
  /// Index of the best median among the candidates that did not fail; kNoCandidate when none.
  std::size_t leader = kNoCandidate;
  /// Index of what tune recommends: the simplest candidate that is clearly better than os and
  /// not clearly worse than the leader (a candidate that only adds pinning to an equal one is
  /// not recommended); the os candidate when nothing is clearly better than it.
  std::size_t best = kNoCandidate;
  std::string conclusion;  ///< "one-core is 4.9x faster than os (...)" / "no placement beats
                           ///< the OS here (...)", and why best is not the leader when it is not
  /// When the runs cannot decide (too few rounds for the budget, an interruption before every
  /// candidate ran, rounds disturbed by other work): why, e.g. "too few rounds to decide (2 of
  /// each; a verdict needs at least 5)"; "" when they decided. `best` is then os only as what
  /// to do meanwhile, never as a verdict.
  std::string undecided;
  /// What would decide it: "rerun with --budget 50s", "rerun on a quiet machine"; "" when
  /// decided.
  std::string to_decide;
  /// The state the verdicts were reached in: the busiest machine state seen around any run.
  MachineState machine_state;
  int runs_kept = 0;         ///< recorded runs of every candidate
  int runs_disturbed = 0;    ///< of those, the ones the machine disturbed (kept and marked)
  int rounds_measured = 0;   ///< rounds with at least one kept run
  int rounds_disturbed = 0;  ///< of those, rounds with a disturbed run (out of the verdicts)
  /// "most runs were disturbed (9 of 12): rerun on a quiet machine for a verdict" when more than
  /// half of the kept runs were; "" otherwise.
  std::string disturbed_note;
  std::string record_output;  ///< the first run's output (under "os"), kept once for the record
  bool record_truncated = false;
  int rounds = 0;
  double elapsed_s = 0;
  double budget_s = 0;
  bool interrupted = false;  ///< Ctrl-C / SIGTERM: the verdicts are on what was found so far
  std::string stopped;       ///< why the loop ended

  /// The candidate at `index`, or null for kNoCandidate.
  const CandidateResult* at(std::size_t index) const;
  /// The name of the candidate at `index`; "" for kNoCandidate.
  std::string name_of(std::size_t index) const;
  /// Whether best is the os candidate (nothing beats the OS here, or undecided).
  bool best_is_os() const;
  /// Whether the runs reached a verdict (undecided is empty).
  bool decided() const { return undecided.empty(); }
};

/// Runs the loop. Fails with ENODATA when the metric's pattern does not match the first
/// successful run's output (naming it, with the program's last lines), with EIO when the program
/// fails under every candidate (the first failure named), and before anything runs when a
/// candidate's launch cannot be prepared (apply::prepare_run's error, naming the candidate).
Result<TuneResult> run_tune(const CandidateSet& set, const Metric& metric,
                            const TuneSettings& settings, const Topology& topology);

/// Which candidate is the leader and whether it beats os, from the samples in `result` (fills
/// every vs_os / vs_leader / vs_best, leader, best, conclusion, undecided, to_decide, runs_kept,
/// runs_disturbed, rounds_* and disturbed_note). Verdicts use only the rounds neither side of a
/// comparison had disturbed. Pure: tests feed it samples, in round order.
void judge(TuneResult& result, const VerdictOptions& options);

}  // namespace threadmap::tune
