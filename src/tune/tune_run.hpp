// The closed loop of `threadmap tune`: run the user's unmodified program under every candidate
// placement, interleaved (A B C, C B A, A B C ... so slow drift is spread over all of them), add
// rounds while the verdict between the leaders is unclear and more runs could settle it and the
// budget allows, and judge each candidate against no placement ("os") and against the leader
// with core/verdict's stated test. A failing candidate is reported and never ranked; a run the
// machine disturbed (busy neighbours, steal) is repeated once, then kept and marked.
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
  bool failed = false;          ///< a run exited non-zero (or printed no metric): not ranked
  std::string failure;          ///< "exit 3 on run 2" + the program's last lines
  MachineState machine_state;   ///< the busiest state seen around its runs
  std::string first_output;     ///< its first recorded (or failing) run's output
  bool first_output_truncated = false;
  MedianInterval interval;  ///< median and its 95% interval
  Verdict vs_os;            ///< this candidate against "os"
  Verdict vs_leader;        ///< this candidate against the leader (the loop's rule)
  Verdict vs_best;          ///< this candidate against `best` (= vs_os when best is os)
};

/// Progress of the loop, for the CLI to print on stderr.
struct Progress {
  std::string candidate;
  int round = 0;  ///< 1-based
  int min_rounds = 0;
  double value = 0;        ///< this run's metric
  bool disturbed = false;  ///< the machine was busy around it
  double elapsed_s = 0;
  double estimate_s = 0;  ///< time still expected: to the minimum rounds, or to the budget
};

struct TuneSettings {
  double budget_s = 60;  ///< wall time for all runs; binds after the first full round
  int min_rounds = 5;    ///< 4 vs 4 is the least that can be clear at alpha 0.05
  int max_rounds = 40;
  int repeat_disturbed = 1;  ///< times a busy run is dropped and run again (not under lasting
                             ///< load: when the run before was busy too, it is kept and marked)
  int idle_window_ms = 50;   ///< before each run: how long to watch what the neighbours do
  VerdictOptions verdict;
  std::function<void(const Progress&)> progress;
};

struct TuneResult {
  Metric metric;
  std::vector<CandidateResult> candidates;  ///< in the set's order, "os" first
  std::vector<std::string> notes;           ///< from the candidate set, and the loop's own
  std::string leader;                       ///< best median among the candidates that did not fail
  std::string best;           ///< the leader when it is clearly better than "os", else "os"
  std::string conclusion;     ///< one line: "one-core is 4.9x faster than os (...)" / "no
                              ///< placement beats the OS here (...)"
  std::string record_output;  ///< the first run's output (under "os"), kept once for the record
  bool record_truncated = false;
  int rounds = 0;
  double elapsed_s = 0;
  double budget_s = 0;
  bool interrupted = false;  ///< Ctrl-C / SIGTERM: the verdicts are on what was found so far
  std::string stopped;       ///< why the loop ended
};

/// Runs the loop. Fails with ENODATA when the metric's pattern does not match the first
/// successful run's output (naming it, with the program's last lines), with EIO when the program
/// fails under every candidate (the first failure named), and before anything runs when a
/// candidate's launch cannot be prepared (apply::prepare_run's error, naming the candidate).
Result<TuneResult> run_tune(const CandidateSet& set, const Metric& metric,
                            const TuneSettings& settings, const Topology& topology);

/// Which candidate is the leader and whether it beats "os", from the samples in `result`
/// (fills every vs_os / vs_leader, leader, best, conclusion). Pure: tests feed it samples.
void judge(TuneResult& result, const VerdictOptions& options);

}  // namespace threadmap::tune
