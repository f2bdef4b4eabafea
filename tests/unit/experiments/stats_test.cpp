#include <gtest/gtest.h>

#include <cmath>

#include "src/experiments/bench_result.hpp"
#include "src/experiments/latency_pairs.hpp"

namespace threadmap::experiments {
namespace {

TEST(Summarize, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(summarize_runs({5, 1, 3}).median, 3);
  EXPECT_DOUBLE_EQ(summarize_runs({4, 1, 3, 2}).median, 2.5);
}

TEST(Summarize, KeepsRunOrderAndSpread) {
  Summary s = summarize_runs({4, 2, 8});
  EXPECT_EQ(s.samples, (std::vector<double>{4, 2, 8}));
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 8);
  EXPECT_DOUBLE_EQ(s.spread_pct, 150);  // (8 - 2) / 4
}

TEST(Summarize, EmptyIsAllZero) {
  Summary s = summarize_runs({});
  EXPECT_EQ(s.median, 0);
  EXPECT_TRUE(s.samples.empty());
}

BenchResult two_variants(bool higher_is_better, double base, double other) {
  BenchResult r;
  r.higher_is_better = higher_is_better;
  Variant b;
  b.name = "os";
  b.value = summarize_runs({base});
  Variant v;
  v.name = "pinned";
  v.baseline = "os";
  v.value = summarize_runs({other});
  r.variants = {b, v};
  return r;
}

TEST(Ratios, TimesAndRatesBothMeanBetterAboveOne) {
  BenchResult times = two_variants(false, 5.0, 1.25);
  compute_ratios(times);
  EXPECT_DOUBLE_EQ(times.variants[0].ratio_to_baseline, 1);
  EXPECT_DOUBLE_EQ(times.variants[1].ratio_to_baseline, 4);
  BenchResult rates = two_variants(true, 100, 107);
  compute_ratios(rates);
  EXPECT_NEAR(rates.variants[1].ratio_to_baseline, 1.07, 1e-12);
}

TEST(Ratios, NoRatioAgainstAnUnavailableBaseline) {
  BenchResult r = two_variants(false, 5.0, 1.0);
  r.variants[0].available = false;
  compute_ratios(r);
  EXPECT_EQ(r.variants[1].ratio_to_baseline, 0);
}

TEST(LatencyPairs, SkipsNanAndAveragesDirections) {
  latency::Matrix m;
  m.cpus = {0, 2, 5};
  const double nan = std::nan("");
  m.one_way_ns = {0,  10,  nan,  //
                  30, 0,   nan,  //
                  40, nan, 0};
  auto pairs = latencies_from_matrix(m);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].cpu_a, 0);
  EXPECT_EQ(pairs[0].cpu_b, 2);
  EXPECT_DOUBLE_EQ(pairs[0].one_way_ns, 20);
  EXPECT_EQ(pairs[1].cpu_b, 5);
  EXPECT_DOUBLE_EQ(pairs[1].one_way_ns, 40);
}

}  // namespace
}  // namespace threadmap::experiments
