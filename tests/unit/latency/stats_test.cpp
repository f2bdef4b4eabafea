// Statistics on synthetic samples with known answers.
#include "src/latency/stats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace threadmap::latency;

namespace {

std::vector<double> normal(std::size_t n, double mean, double sd, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> dist(mean, sd);
  std::vector<double> out(n);
  for (auto& v : out) v = dist(rng);
  return out;
}

TEST(Stats, MedianMinP90OfKnownSamples) {
  std::vector<double> s;
  for (int i = 1; i <= 101; ++i) s.push_back(i);
  std::shuffle(s.begin(), s.end(), std::mt19937(3));
  auto sum = summarize(s);
  EXPECT_EQ(sum.count, 101u);
  EXPECT_DOUBLE_EQ(sum.median, 51);
  EXPECT_DOUBLE_EQ(sum.min, 1);
  EXPECT_DOUBLE_EQ(sum.p90, 91);
  // Ranks n/2 -+ 1.96 sqrt(n)/2 = 50.5 -+ 9.85 -> 40 and 62 (outward rounding).
  EXPECT_DOUBLE_EQ(sum.ci_low, 40);
  EXPECT_DOUBLE_EQ(sum.ci_high, 62);
}

TEST(Stats, MedianIntervalCoversTheTrueMedianAboutNinetyFivePercentOfTheTime) {
  int covered = 0;
  const int trials = 400;
  for (int t = 0; t < trials; ++t) {
    auto sum = summarize(normal(60, 100, 10, 1000 + t));
    covered += (sum.ci_low <= 100 && 100 <= sum.ci_high) ? 1 : 0;
  }
  EXPECT_GE(covered, trials * 92 / 100);
  EXPECT_LE(covered, trials * 995 / 1000);  // not a trivially huge interval
}

TEST(Stats, IntervalShrinksWithMoreSamplesSoConvergenceNeedsEnough) {
  auto few = summarize(normal(20, 100, 10, 1));
  auto many = summarize(normal(2000, 100, 10, 1));
  EXPECT_GT(few.ci_high - few.ci_low, 3 * (many.ci_high - many.ci_low));
  EXPECT_FALSE(is_converged(few, 0.03));
  EXPECT_TRUE(is_converged(many, 0.03));
  EXPECT_FALSE(is_converged(summarize({100, 100, 100}), 0.03));  // too few to bound a median
}

TEST(Stats, DisagreeingIntervals) {
  EXPECT_TRUE(intervals_disagree(25, 30, 120, 130));
  EXPECT_TRUE(intervals_disagree(120, 130, 25, 30));
  EXPECT_FALSE(intervals_disagree(25, 30, 29, 35));
}

TEST(Stats, UnimodalAndSkewedSamplesAreNotMultimodal) {
  EXPECT_FALSE(find_modes(normal(500, 100, 5, 2)).multimodal);
  std::mt19937 rng(4);
  std::lognormal_distribution<double> skewed(std::log(50.0), 0.3);
  std::vector<double> s(500);
  for (auto& v : s) v = skewed(rng);
  EXPECT_FALSE(find_modes(s).multimodal);
  // A 3% tail of slow batches (interrupts) is a tail, not a mode.
  auto tail = normal(485, 30, 1, 5);
  auto slow = normal(15, 300, 50, 6);
  tail.insert(tail.end(), slow.begin(), slow.end());
  EXPECT_FALSE(find_modes(tail).multimodal);
}

TEST(Stats, TwoModesAreFoundAndReportedSeparately) {
  // The VM case: the same pair at ~27 ns and at ~125 ns.
  auto s = normal(300, 27, 1.5, 7);
  auto far = normal(200, 125, 6, 8);
  s.insert(s.end(), far.begin(), far.end());
  std::shuffle(s.begin(), s.end(), std::mt19937(9));
  auto modes = find_modes(s);
  ASSERT_TRUE(modes.multimodal);
  ASSERT_EQ(modes.modes.size(), 2u);
  EXPECT_NEAR(modes.modes[0], 27, 1);
  EXPECT_NEAR(modes.modes[1], 125, 3);
}

}  // namespace
