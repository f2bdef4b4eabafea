// The verdict rule. Exact p-values are the Mann-Whitney tables' (complete separation of n vs n
// samples: p = 2 / C(2n, n)), not our own output.
#include "src/core/verdict.hpp"

#include <gtest/gtest.h>

namespace threadmap {
namespace {

TEST(MannWhitney, CompleteSeparationMatchesTheExactTable) {
  // 3 vs 3: 2 / C(6,3) = 0.1; 4 vs 4: 2 / 70; 5 vs 5: 2 / 252.
  EXPECT_NEAR(mann_whitney_p({1, 2, 3}, {4, 5, 6}), 0.1, 1e-12);
  EXPECT_NEAR(mann_whitney_p({1, 2, 3, 4}, {5, 6, 7, 8}), 2.0 / 70, 1e-12);
  EXPECT_NEAR(mann_whitney_p({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}), 2.0 / 252, 1e-12);
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

TEST(Verdict, ThreeRunsAgainstThreeAreNeverClear) {
  // Twice as fast, no overlap at all: still only p = 0.1 with 3 runs a side.
  Verdict v = compare_samples({10, 11, 12}, {20, 21, 22}, /*higher_is_better=*/false);
  EXPECT_EQ(v.kind, Verdict::Kind::no_clear_difference);
  EXPECT_EQ(v.word(), "no clear difference");
  EXPECT_NEAR(v.ratio, 21.0 / 11, 1e-9);  // baseline median / candidate median
  EXPECT_NE(v.reason.find("p=0.1"), std::string::npos) << v.reason;
  EXPECT_TRUE(v.more_samples_could_help());
}

TEST(Verdict, FiveSeparatedRunsAreClearInTheUnitsDirection) {
  Verdict times = compare_samples({10, 11, 12, 10.5, 11.5}, {20, 21, 22, 20.5, 21.5}, false);
  EXPECT_EQ(times.kind, Verdict::Kind::better);
  EXPECT_EQ(times.word(), "faster");
  EXPECT_TRUE(times.reason.empty());
  // The same numbers as rates: higher is better, so the candidate is slower.
  Verdict rates = compare_samples({10, 11, 12, 10.5, 11.5}, {20, 21, 22, 20.5, 21.5}, true);
  EXPECT_EQ(rates.kind, Verdict::Kind::worse);
  EXPECT_EQ(rates.word(), "slower");
  EXPECT_NEAR(rates.ratio, 11.0 / 21, 1e-9);
}

TEST(Verdict, OverlappingSamplesAreNeverFasterOrSlower) {
  // A noisy machine: spread 300%, medians 1.9x apart, ranges overlap.
  Verdict v = compare_samples({5, 9, 30, 8, 40}, {12, 15, 70, 17, 14}, false);
  EXPECT_FALSE(v.clear());
  EXPECT_TRUE(v.intervals_overlap);
}

TEST(Verdict, ASmallButRealDifferenceIsBelowTheMinimumEffect) {
  std::vector<double> a, b;
  for (int i = 0; i < 10; ++i) {
    a.push_back(100 + i * 0.1);
    b.push_back(102 + i * 0.1);
  }
  Verdict v = compare_samples(a, b, false);
  EXPECT_LT(v.p_value, 0.001);
  EXPECT_EQ(v.kind, Verdict::Kind::no_clear_difference);
  EXPECT_NE(v.reason.find("effect 2% < 5%"), std::string::npos) << v.reason;
  EXPECT_FALSE(v.more_samples_could_help());
  VerdictOptions fine;
  fine.min_effect = 0.01;
  EXPECT_EQ(compare_samples(a, b, false, fine).kind, Verdict::Kind::better);
}

TEST(Verdict, OneRunIsNotEnough) {
  Verdict v = compare_samples({1}, {2, 3, 4}, false);
  EXPECT_EQ(v.kind, Verdict::Kind::not_enough_samples);
  EXPECT_FALSE(v.clear());
  EXPECT_EQ(v.word(), "no clear difference");
}

TEST(MedianInterval, SmallSetsUseTheWholeRange) {
  MedianInterval m = median_interval({3, 1, 2, 10});
  EXPECT_DOUBLE_EQ(m.median, 2.5);
  EXPECT_DOUBLE_EQ(m.low, 1);
  EXPECT_DOUBLE_EQ(m.high, 10);
}

}  // namespace
}  // namespace threadmap
