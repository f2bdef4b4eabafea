// latency::latency_request and run_latency with saved matrices (no measurement): the defaults and
// combination rules of the options, the analysis it returns, and the input it blames on
// failure with whose fault it is, which is what lets the CLI name the flag and pick the status.
#include "src/latency/latency_run.hpp"

#include <gtest/gtest.h>

namespace threadmap::latency {
namespace {

const std::string kData = THREADMAP_TEST_DATA;

// The request for a saved matrix (and its topology), checked as `latency --load` is.
LatencyRequest loading(const std::string& matrix, const std::string& topology = "") {
  LatencyOptions o;
  o.load_file = matrix;
  o.topology_file = topology;
  return *latency_request(o);
}

TEST(LatencyRun, LoadsAndAnalysesWithoutATopology) {
  LatencyRequest request = loading(kData + "/latency/AMD_EPYC_7773X.csv");
  auto run = run_latency(request);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_FALSE(run->measurement);
  EXPECT_FALSE(run->topology);
  EXPECT_FALSE(run->analysis.comparison);
  EXPECT_EQ(run->analysis.order.size(), run->matrix.size());
}

TEST(LatencyRun, ComparesWithAGivenTopologyFile) {
  LatencyRequest request = loading(kData + "/latency/AMD_EPYC_7773X.csv",
                                   kData + "/topologies/amd-2x-epyc7763-zen3.xml");
  auto run = run_latency(request);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->topology_source, request.topology_file);
  EXPECT_TRUE(run->analysis.comparison);
}

TEST(LatencyRun, BlamesTheInputAtFault) {
  LatencyRequest missing = loading(kData + "/latency/no-such-file.csv");
  auto no_file = run_latency(missing);
  ASSERT_FALSE(no_file);
  EXPECT_EQ(no_file.error().input, "load_file");
  EXPECT_EQ(no_file.error().fault, Fault::work);  // a file that cannot be read: the work failed

  LatencyRequest bad_topology =
      loading(kData + "/latency/AMD_EPYC_7773X.csv", kData + "/topologies/no-such-machine.xml");
  auto no_topology = run_latency(bad_topology);
  ASSERT_FALSE(no_topology);
  EXPECT_EQ(no_topology.error().input, "topology_file");
  EXPECT_EQ(no_topology.error().fault, Fault::work);
}

TEST(LatencyRequest, DefaultsAreAppliedOnce) {
  auto request = latency_request(LatencyOptions{});
  ASSERT_TRUE(request) << request.error().message;
  EXPECT_EQ(request->measure.method, Method::cas);
  EXPECT_DOUBLE_EQ(request->measure.precision, 0.03);
  EXPECT_DOUBLE_EQ(request->measure.budget_ms, 100);
  EXPECT_TRUE(request->measure.recheck);
  EXPECT_EQ(request->measure.seed, 0u);
  EXPECT_EQ(request->row_order, RowOrder::topology);
}

TEST(LatencyRequest, HowToMeasureIsRefusedWithASavedMatrixNamingTheMember) {
  // Choosing how to measure means measuring: refused with a saved matrix, before anything is
  // read, naming the first such option given; the message names no flag (the CLI does).
  auto with_load = [](auto change) {
    LatencyOptions o;
    o.load_file = "matrix.csv";
    change(o);
    return latency_request(o);
  };
  struct Case {
    Result<LatencyRequest> refused;
    const char* member;
  };
  for (const Case& c :
       {Case{with_load([](LatencyOptions& o) { o.cpus = "0-3"; }), "cpus"},
        Case{with_load([](LatencyOptions& o) { o.quick = true; }), "quick"},
        Case{with_load([](LatencyOptions& o) { o.method = "cas"; }), "method"},
        Case{with_load([](LatencyOptions& o) { o.precision_pct = 5; }), "precision_pct"},
        Case{with_load([](LatencyOptions& o) { o.budget_ms = 10; }), "budget_ms"},
        Case{with_load([](LatencyOptions& o) { o.no_recheck = true; }), "no_recheck"},
        Case{with_load([](LatencyOptions& o) { o.seed = 7; }), "seed"}}) {
    ASSERT_FALSE(c.refused) << c.member;
    EXPECT_EQ(c.refused.error().input, c.member);
    EXPECT_EQ(c.refused.error().fault, Fault::input);
    EXPECT_EQ(c.refused.error().message.find("--"), std::string::npos);
  }
  LatencyOptions bogus;
  bogus.method = "bogus";
  auto method = latency_request(bogus);
  ASSERT_FALSE(method);
  EXPECT_EQ(method.error().input, "method");
  EXPECT_EQ(method.error().fault, Fault::input);
}

}  // namespace
}  // namespace threadmap::latency
