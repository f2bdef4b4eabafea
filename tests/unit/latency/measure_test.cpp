// A real measurement on this machine's CPUs, kept short (small budgets), and the errors a
// user gets when there is nothing to measure between.
#include <gtest/gtest.h>

#include <cmath>

#include "src/latency/measurement.hpp"
#include "src/latency/pingpong.hpp"
#include "threadmap/affinity.hpp"

using namespace threadmap;

namespace {

Topology this_machine() {
  auto topo = Topology::load_this_machine();
  EXPECT_TRUE(topo) << topo.error().message;
  return *topo;
}

TEST(Measure, RealPairGivesPositiveFiniteMediansWithIntervals) {
  auto allowed = allowed_cpus();
  ASSERT_TRUE(allowed);
  if (allowed->count() < 2) GTEST_SKIP() << "needs 2 allowed CPUs, have " << allowed->to_list();
  auto v = allowed->to_vector();
  latency::MeasureOptions opt;
  opt.cpus = CpuSet{v[0], v[1]};
  opt.budget_ms = 30;
  opt.seed = 42;
  std::size_t progress_calls = 0;
  opt.progress = [&](const latency::Progress& p) {
    ++progress_calls;
    EXPECT_LE(p.pairs_done, p.pairs_total);
  };
  for (auto method : {latency::Method::cas, latency::Method::two_lines}) {
    opt.method = method;
    progress_calls = 0;
    auto run = latency::measure(opt, this_machine());
    ASSERT_TRUE(run) << run.error().message;
    ASSERT_EQ(run->pairs.size(), 1u);
    const auto& p = run->pairs[0];
    EXPECT_EQ(p.cpu_a, v[0]);
    EXPECT_EQ(p.cpu_b, v[1]);
    EXPECT_TRUE(std::isfinite(p.median_ns));
    EXPECT_GT(p.median_ns, 0);
    EXPECT_LE(p.min_ns, p.median_ns);
    EXPECT_LE(p.median_ns, p.p90_ns);
    EXPECT_LE(p.ci_low_ns, p.median_ns);
    EXPECT_GE(p.ci_high_ns, p.median_ns);
    EXPECT_GE(p.samples, 6u);
    EXPECT_TRUE(p.rechecked);
    EXPECT_GT(p.recheck_median_ns, 0);
    EXPECT_GT(p.reported_ns, 0);
    EXPECT_EQ(run->matrix.between(v[0], v[1]), p.reported_ns);
    EXPECT_EQ(run->matrix.between(v[1], v[0]), p.reported_ns);
    EXPECT_GT(run->clock_resolution_ns, 0);
    EXPECT_GE(run->min_batch_ns, 1000 * run->clock_resolution_ns);
    // Each batch is long enough for the clock: samples * round trips * 2 * median >= min batch.
    EXPECT_GE(p.round_trips_per_batch * 2 * p.min_ns, 0.5 * run->min_batch_ns);
    EXPECT_EQ(progress_calls, 2u);  // one pair, two passes
    EXPECT_FALSE(run->line_placement.empty());
  }
}

TEST(Measure, FewerThanTwoCpusIsAClearError) {
  auto allowed = allowed_cpus();
  ASSERT_TRUE(allowed);
  latency::MeasureOptions opt;
  opt.cpus = CpuSet{allowed->first()};
  auto run = latency::measure(opt, this_machine());
  ASSERT_FALSE(run);
  EXPECT_NE(run.error().message.find("at least 2 CPUs"), std::string::npos) << run.error().message;
}

TEST(Measure, CpuOutsideAllowedSetIsRejectedBeforeMeasuring) {
  auto allowed = allowed_cpus();
  ASSERT_TRUE(allowed);
  latency::MeasureOptions opt;
  opt.cpus = CpuSet{allowed->first(), allowed->last() + 1000};
  auto run = latency::measure(opt, this_machine());
  ASSERT_FALSE(run);
  EXPECT_NE(run.error().message.find("not in the allowed set"), std::string::npos)
      << run.error().message;
}

TEST(Measure, MethodNamesRoundTrip) {
  EXPECT_EQ(latency::parse_method("cas").value(), latency::Method::cas);
  EXPECT_EQ(latency::parse_method("two-lines").value(), latency::Method::two_lines);
  EXPECT_STREQ(latency::method_name(latency::Method::two_lines), "two-lines");
  EXPECT_FALSE(latency::parse_method("mfence"));
}

}  // namespace

namespace {

TEST(PairPass, ResponderThatCannotRunIsAnErrorNotAHang) {
  // Both threads on one CPU: the responder only runs when the scheduler preempts the spinning
  // initiator, milliseconds per round trip, so with a 1 ms stall limit the first batch stalls.
  auto allowed = allowed_cpus();
  ASSERT_TRUE(allowed);
  int cpu = allowed->first();
  latency::PassConfig config;
  config.stall_ns = 1e6;
  config.fixed_round_trips = 1000;
  config.fixed_samples = 1;
  auto pass = latency::measure_pair_pass(cpu, cpu, config);
  ASSERT_FALSE(pass);
  EXPECT_EQ(pass.error().code, std::make_error_code(std::errc::timed_out));
  EXPECT_NE(pass.error().message.find("did not answer"), std::string::npos) << pass.error().message;
}

TEST(PairPass, FixedIterationModeTimesExactlyThatMany) {
  auto allowed = allowed_cpus();
  ASSERT_TRUE(allowed);
  if (allowed->count() < 2) GTEST_SKIP() << "needs 2 allowed CPUs";
  auto v = allowed->to_vector();
  latency::PassConfig config;
  config.fixed_round_trips = 100;
  config.fixed_samples = 7;
  auto pass = latency::measure_pair_pass(v[0], v[1], config);
  ASSERT_TRUE(pass) << pass.error().message;
  EXPECT_EQ(pass->one_way_ns.size(), 7u);
  EXPECT_EQ(pass->round_trips_per_batch, 100u);
  for (double ns : pass->one_way_ns) EXPECT_GT(ns, 0);
}

}  // namespace
