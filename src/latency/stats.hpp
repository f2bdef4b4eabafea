// Statistics of one pair's samples (one sample = the mean one-way latency of one timed batch):
// median, min, p90, a distribution-free 95% confidence interval of the median, convergence,
// and a multimodality check. Medians and order statistics because latency samples are skewed
// (interrupts, SMIs and host preemption only ever add time) and sometimes bimodal (a vCPU that
// the host moves mid-run): a mean would average modes into a value no message ever took.
#pragma once

#include <cstddef>
#include <vector>

namespace threadmap::latency {

/// Summary of a sample set. All values in the samples' unit (ns).
struct SampleSummary {
  std::size_t count = 0;
  double median = 0;
  double min = 0;
  double max = 0;
  double p90 = 0;
  double ci_low = 0;  ///< 95% CI of the median, from the binomial order statistics
  double ci_high = 0;
};

/// Summarises `samples` (any order). For count < 6 the interval is [min, max], which no
/// precision target accepts as converged (too few samples to bound a median). Empty input gives
/// an all-zero summary.
SampleSummary summarize(std::vector<double> samples);

/// True when the median's 95% CI lies within median * (1 +- precision), e.g. 0.03 for +-3%.
bool is_converged(const SampleSummary& summary, double precision);

/// True when two 95% intervals do not overlap: the two medians disagree beyond their noise.
bool intervals_disagree(double low_a, double high_a, double low_b, double high_b);

/// Result of the multimodality check.
struct Modality {
  bool multimodal = false;
  std::vector<double> modes;  ///< median of each mode, ascending (one entry when unimodal)
};

/// Looks for separated modes: the widest gap in the sorted samples splits them into two groups,
/// each holding at least 10% of the samples, whose medians differ by >= 25% and whose gap is
/// wider than the spread inside either group. Tails (a few slow batches) are not a mode.
Modality find_modes(std::vector<double> samples);

}  // namespace threadmap::latency
