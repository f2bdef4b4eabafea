// The distribution-free tests the verdict rule (verdict.hpp) is made of, each on its own: the
// Mann-Whitney rank test for two independent samples, the Wilcoxon signed-rank test and the
// sign test for paired samples (one pair per interleaved round), and the intervals that go with
// them. Rank tests because run times on a shared machine are skewed (a neighbour or the host
// only ever adds time) and a t-test's normality does not hold. Each matches the published
// tables and R's wilcox.test / binom.test on the same input (tests/unit/core/verdict_test.cpp).
#pragma once

#include <cstddef>
#include <vector>

namespace threadmap {

/// Two-sided Mann-Whitney U p-value of samples a against b (exact without ties when both have
/// at most 20 samples, otherwise normal approximation with tie and continuity correction).
/// 1 when either side is empty.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

/// The smallest two-sided p the exact Mann-Whitney test can give for n1 vs n2 samples (complete
/// separation: 2 / C(n1 + n2, n1)); 1 when either is 0.
double smallest_mann_whitney_p(std::size_t n1, std::size_t n2);

/// The median and its distribution-free 95% interval (binomial order statistics; the whole
/// range below 6 samples). All zero when empty.
struct MedianInterval {
  double median = 0;
  double low = 0;
  double high = 0;
};
MedianInterval median_interval(std::vector<double> samples);

/// The Wilcoxon signed-rank test of paired differences against "symmetric about 0" (which
/// interleaved rounds give when the two sides do not differ: either could have run first).
struct SignedRank {
  std::size_t used = 0;  ///< differences that are not 0 (zeros are dropped, as Wilcoxon did)
  double statistic = 0;  ///< V: the sum of the ranks of the positive differences
  double p_value = 1;    ///< two-sided; 1 when no difference is left
  bool exact = false;    ///< exact distribution (no ties, no zeros, under 50 pairs)
};
SignedRank wilcoxon_signed_rank(const std::vector<double>& differences);

/// The smallest two-sided p the exact signed-rank test (and the sign test) can give for n
/// pairs: every pair on one side, 2 / 2^n; 1 when n is 0.
double smallest_signed_rank_p(std::size_t n);

/// Two-sided exact binomial p of `positive` against `negative` outcomes at one half each (the
/// sign test; ties are left out by the caller). 1 when both are 0.
double sign_test_p(std::size_t positive, std::size_t negative);

/// The Hodges-Lehmann estimate of the differences' centre (the median of the Walsh averages,
/// (d_i + d_j) / 2 for i <= j) and its distribution-free interval at 1 - alpha, from the
/// signed-rank distribution: the interval that excludes 0 exactly when the exact signed-rank
/// test rejects at alpha. `bounded` is false when n is too small for any interval at that
/// level (fewer than 6 pairs at 5%): then low and high are the smallest and largest difference.
struct ShiftInterval {
  double estimate = 0;
  double low = 0;
  double high = 0;
  bool bounded = false;
};
ShiftInterval hodges_lehmann_interval(const std::vector<double>& differences, double alpha);

}  // namespace threadmap
