// Measuring core-to-core latency on this machine: the options, the per-pair statistics and the
// run as a whole. This is the API `threadmap latency` and `threadmap report` call:
//   auto run = latency::measure(options);   // options.cpus, method, precision, budget, progress
//   run->matrix (one-way ns), run->pairs (stats and flags per pair), run->notes
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "src/latency/matrix.hpp"
#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::latency {

/// How the two threads exchange a cache line.
enum class Method {
  cas,        ///< one shared line; each side compare-and-swaps it from the other's value to its own
  two_lines,  ///< two lines (ping, pong): each side stores to its own, spins loading the other
};

/// "cas" or "two-lines".
const char* method_name(Method method);
/// Parses "cas" / "two-lines"; EINVAL naming the text otherwise.
Result<Method> parse_method(const std::string& text);

/// Where a measurement stands, for a progress display (the library never prints).
struct Progress {
  std::size_t pairs_done = 0;   ///< pair measurements finished (both passes count)
  std::size_t pairs_total = 0;  ///< pair measurements planned
  double elapsed_s = 0;         ///< wall time since the start
  double eta_s = 0;             ///< estimated seconds left (from the mean time per pair so far)
  int cpu_a = -1, cpu_b = -1;   ///< the pair just finished
};

/// What to measure and how hard.
struct MeasureOptions {
  CpuSet cpus;  ///< CPUs to measure; empty = every allowed CPU
  Method method = Method::cas;
  double precision = 0.03;       ///< target half-width of the median's 95% CI, relative (0.03 = 3%)
  double budget_ms = 200;        ///< most time spent on one pair in one pass, ms
  bool quick = false;            ///< one representative pair per topology class (needs topology)
  bool recheck = true;           ///< re-measure every pair in a second, shuffled pass
  std::uint64_t seed = 0;        ///< pair-order shuffle seed; 0 = from the clock
  std::size_t min_samples = 16;  ///< batches before the CI is trusted
  std::size_t max_samples = 4096;                 ///< batches kept per pair and pass
  std::function<void(const Progress&)> progress;  ///< called after each pair; may be empty
};

/// Statistics of one pair of CPUs. All latencies are ONE-WAY ns = (batch time / round trips) / 2.
struct PairStats {
  int cpu_a = -1;           ///< initiator: its thread allocates and first touches the line
  int cpu_b = -1;           ///< responder
  std::size_t samples = 0;  ///< batches timed in the first pass
  std::size_t round_trips_per_batch = 0;
  double median_ns = 0;  ///< median of the batch means (first pass)
  double min_ns = 0;
  double p90_ns = 0;
  double ci_low_ns = 0;  ///< 95% confidence interval of the median (order statistics)
  double ci_high_ns = 0;
  bool converged = false;        ///< CI within +-precision before the budget ran out
  double elapsed_ms = 0;         ///< time spent on this pair, both passes
  bool rechecked = false;        ///< a second pass ran
  double recheck_median_ns = 0;  ///< second pass, measured later in shuffled order
  double recheck_ci_low_ns = 0;
  double recheck_ci_high_ns = 0;
  bool unstable = false;         ///< the passes' intervals do not overlap and the medians
                                 ///< differ by more than the precision
  bool multimodal = false;       ///< samples fall into separated modes (either pass)
  std::vector<double> modes_ns;  ///< centres of the modes when multimodal
  double reported_ns = 0;        ///< what the matrix holds for this pair (see docs/latency.md)
  std::string represents;        ///< --quick: the topology class this pair stands for
};

/// A whole run.
struct Measurement {
  Matrix matrix;                 ///< one-way ns; cells of unmeasured pairs NaN
  std::vector<PairStats> pairs;  ///< one per measured pair (cpu_a < cpu_b)
  Method method = Method::cas;
  double precision = 0;
  double budget_ms = 0;
  double clock_resolution_ns = 0;  ///< measured steady-clock resolution
  double min_batch_ns = 0;         ///< batches last at least this long (1000 x resolution)
  /// Wall time of the whole measurement: the clock's calibration, starting the threads, the
  /// passes and judging them.
  double total_s = 0;
  double passes_s = 0;  ///< wall time of the pair passes alone (the part the budget bounds)
  bool quick = false;
  std::string line_placement;      ///< where the shared line lives, in words
  std::string hostname, kernel;    ///< machine metadata
  std::vector<std::string> notes;  ///< things the user must know (quick mode, unstable pairs...)
};

/// The samples of one pair, as the passes left them: what judge_pair reads.
struct PairSamples {
  int cpu_a = -1, cpu_b = -1;
  std::vector<double> first_ns;   ///< one-way ns per batch, first pass
  std::vector<double> second_ns;  ///< second pass; empty when none ran
  bool rechecked = false;         ///< a second pass ran
  bool first_converged = false, second_converged = false;
  std::size_t round_trips_per_batch = 0;
  double elapsed_ms = 0;  ///< both passes
};

/// Judges one pair from its passes' samples: statistics of the first pass, of the second, the
/// unstable flag (intervals disjoint and medians more than `precision` apart), the modes and
/// the value the matrix reports (pooled median; the lower median when the passes disagree).
/// Pure: the same samples always give the same verdict (tested on recorded samples).
PairStats judge_pair(const PairSamples& samples, double precision);

/// The verdicts on every pair of a run and what they add up to.
struct JudgedPairs {
  std::vector<PairStats> pairs;   ///< judge_pair of each sample set, in the same order
  std::size_t unstable = 0;       ///< pairs whose passes disagreed
  std::size_t multimodal = 0;     ///< pairs whose samples fall into separated modes
  std::size_t not_converged = 0;  ///< pairs that did not reach the precision in every pass
  std::size_t rechecked = 0;      ///< pairs measured twice
  Stability stability;            ///< judge_stability(unstable, rechecked): the matrix's
};

/// Judges every pair of a run from the samples its passes recorded (judge_pair on each) and
/// counts the verdicts. Pure, like judge_pair: a run's verdicts can be replayed from its samples.
JudgedPairs judge_pairs(std::vector<PairSamples> samples, double precision);

/// Measures the one-way latency of every pair of `options.cpus` (or, with quick, of one pair per
/// topology class of `topology`). Needs at least 2 usable CPUs: fails with EINVAL naming the set
/// otherwise, or when a CPU is outside the allowed set. Fails when a thread cannot be pinned.
Result<Measurement> measure(const MeasureOptions& options, const Topology& topology);

}  // namespace threadmap::latency
