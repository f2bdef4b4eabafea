// The rank tests against published tables and R's documented examples, not our own output:
// Mann-Whitney complete separation (p = 2 / C(2n, n)), the Wilcoxon signed-rank critical values
// (two-sided 5%, n = 6..30, as printed in the standard critical-value tables), R's wilcox.test
// example (Hollander & Wolfe's depression scores: V = 40, one-sided p = 0.01953), and binomial
// sign-test tails.
#include "src/core/verdict_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace threadmap {
namespace {

TEST(MannWhitney, CompleteSeparationMatchesTheExactTable) {
  // 3 vs 3: 2 / C(6,3) = 0.1; 4 vs 4: 2 / 70; 5 vs 5: 2 / 252.
  EXPECT_NEAR(mann_whitney_p({1, 2, 3}, {4, 5, 6}), 0.1, 1e-12);
  EXPECT_NEAR(mann_whitney_p({1, 2, 3, 4}, {5, 6, 7, 8}), 2.0 / 70, 1e-12);
  EXPECT_NEAR(mann_whitney_p({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}), 2.0 / 252, 1e-12);
  EXPECT_NEAR(smallest_mann_whitney_p(3, 3), 0.1, 1e-12);
  EXPECT_NEAR(smallest_mann_whitney_p(4, 4), 2.0 / 70, 1e-12);
  EXPECT_NEAR(smallest_mann_whitney_p(3, 5), 2.0 / 56, 1e-12);
  EXPECT_DOUBLE_EQ(smallest_mann_whitney_p(0, 5), 1.0);
}

TEST(MannWhitney, InterleavedSamplesAreNotSignificant) {
  // U = 6 of 16 for 4 vs 4: P(U <= 6) = 24/70 (table), two-sided 48/70.
  EXPECT_NEAR(mann_whitney_p({1, 3, 5, 7}, {2, 4, 6, 8}), 48.0 / 70, 1e-12);
  EXPECT_GT(mann_whitney_p({1, 4, 5, 8}, {2, 3, 6, 7}), 0.5);
}

TEST(MannWhitney, LargeSamplesWithTiesUseTheNormalApproximation) {
  std::vector<double> a(30, 1.0), b(30, 2.0);
  EXPECT_LT(mann_whitney_p(a, b), 1e-6);
  EXPECT_DOUBLE_EQ(mann_whitney_p(a, a), 1.0);
}

// Differences whose magnitudes are the ranks 1..n and whose positive ranks add up to v.
std::vector<double> with_statistic(int n, int v) {
  std::vector<double> d;
  for (int rank = n; rank >= 1; --rank) {
    const bool positive = rank <= v;
    if (positive) v -= rank;
    d.push_back(positive ? rank : -rank);
  }
  return d;
}

TEST(SignedRank, CriticalValuesMatchThePublishedTable) {
  // Two-sided alpha 0.05: reject when V (or n(n+1)/2 - V) is at most the table's value.
  const int table[][2] = {{6, 0},    {7, 2},    {8, 3},    {9, 5},   {10, 8},  {11, 10}, {12, 13},
                          {13, 17},  {14, 21},  {15, 25},  {16, 29}, {17, 34}, {18, 40}, {19, 46},
                          {20, 52},  {21, 58},  {22, 65},  {23, 73}, {24, 81}, {25, 89}, {26, 98},
                          {27, 107}, {28, 116}, {29, 126}, {30, 137}};
  for (const auto& [n, critical] : table) {
    SignedRank at = wilcoxon_signed_rank(with_statistic(n, critical));
    SignedRank above = wilcoxon_signed_rank(with_statistic(n, critical + 1));
    ASSERT_TRUE(at.exact) << n;
    EXPECT_DOUBLE_EQ(at.statistic, critical) << n;
    EXPECT_LE(at.p_value, 0.05) << "n=" << n;
    EXPECT_GT(above.p_value, 0.05) << "n=" << n;
  }
  // Five pairs can never reject: every pair on one side gives 2 / 32.
  EXPECT_NEAR(wilcoxon_signed_rank({1, 2, 3, 4, 5}).p_value, 0.0625, 1e-12);
  EXPECT_NEAR(smallest_signed_rank_p(5), 0.0625, 1e-12);
  EXPECT_NEAR(smallest_signed_rank_p(6), 0.03125, 1e-12);
}

TEST(SignedRank, MatchesRsDocumentedExample) {
  // ?wilcox.test: x - y of Hollander & Wolfe's depression scores, paired, "greater":
  // V = 40, p-value = 0.01953 (two-sided: twice that).
  const double x[] = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
  const double y[] = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
  std::vector<double> d;
  for (int i = 0; i < 9; ++i) d.push_back(x[i] - y[i]);
  SignedRank s = wilcoxon_signed_rank(d);
  EXPECT_DOUBLE_EQ(s.statistic, 40);
  EXPECT_TRUE(s.exact);
  EXPECT_NEAR(s.p_value / 2, 0.01953, 5e-6);
  // Hollander & Wolfe's estimate of the shift for the same data: 0.46.
  EXPECT_NEAR(hodges_lehmann_interval(d, 0.05).estimate, 0.46, 1e-9);
}

TEST(SignedRank, ZerosAreDroppedAndTiesUseTheNormalApproximation) {
  SignedRank s = wilcoxon_signed_rank({0, 0, 1, 1, 1, 1, 1, 1, 1, 1});
  EXPECT_EQ(s.used, 8u);
  EXPECT_FALSE(s.exact);
  EXPECT_LT(s.p_value, 0.02);
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank({0, 0}).p_value, 1.0);
}

TEST(SignTest, MatchesTheBinomialTable) {
  // 15 of 16 one way: 2 * (1 + 16) / 2^16.
  EXPECT_NEAR(sign_test_p(15, 1), 2.0 * 17 / 65536, 1e-12);
  // 9 of 10: 2 * 11 / 1024; 7 of 8: 2 * 9 / 256; an even split is 1.
  EXPECT_NEAR(sign_test_p(1, 9), 2.0 * 11 / 1024, 1e-12);
  EXPECT_NEAR(sign_test_p(7, 1), 2.0 * 9 / 256, 1e-12);
  EXPECT_DOUBLE_EQ(sign_test_p(5, 5), 1.0);
  EXPECT_DOUBLE_EQ(sign_test_p(0, 0), 1.0);
}

// The interval is the test inverted: it excludes 0 exactly when the exact test rejects.
TEST(HodgesLehmann, IntervalExcludesZeroExactlyWhenTheTestRejects) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> noise(-1, 1);
  int rejected = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int n = 6 + trial % 15;
    const double shift = (trial % 4) * 0.25;
    std::vector<double> d;
    for (int i = 0; i < n; ++i) d.push_back(shift + noise(rng));
    const SignedRank s = wilcoxon_signed_rank(d);
    const ShiftInterval h = hodges_lehmann_interval(d, 0.05);
    ASSERT_TRUE(s.exact);
    ASSERT_TRUE(h.bounded);
    const bool excludes_zero = h.low > 0 || h.high < 0;
    EXPECT_EQ(excludes_zero, s.p_value <= 0.05) << "n=" << n << " p=" << s.p_value;
    rejected += excludes_zero;
  }
  EXPECT_GT(rejected, 50);  // the shifted sets do reject: the check above is not vacuous
}

TEST(HodgesLehmann, FiveDifferencesHaveNoIntervalAtFivePercent) {
  ShiftInterval h = hodges_lehmann_interval({1, 2, 3, 4, 5}, 0.05);
  EXPECT_FALSE(h.bounded);
  EXPECT_DOUBLE_EQ(h.estimate, 3);
  // Six all on one side: the interval is the whole range, and excludes 0.
  ShiftInterval six = hodges_lehmann_interval({1, 2, 3, 4, 5, 6}, 0.05);
  EXPECT_TRUE(six.bounded);
  EXPECT_DOUBLE_EQ(six.low, 1);
  EXPECT_DOUBLE_EQ(six.high, 6);
}

TEST(MedianInterval, SmallSetsUseTheWholeRange) {
  MedianInterval m = median_interval({3, 1, 2, 10});
  EXPECT_DOUBLE_EQ(m.median, 2.5);
  EXPECT_DOUBLE_EQ(m.low, 1);
  EXPECT_DOUBLE_EQ(m.high, 10);
}

}  // namespace
}  // namespace threadmap
