// latency::run_latency with saved matrices (no measurement): the analysis it returns, and the
// input it blames on failure, which is what lets the CLI name the flag.
#include "src/latency/latency_run.hpp"

#include <gtest/gtest.h>

namespace threadmap::latency {
namespace {

const std::string kData = THREADMAP_TEST_DATA;

TEST(LatencyRun, LoadsAndAnalysesWithoutATopology) {
  LatencyRequest request;
  request.load_file = kData + "/latency/AMD_EPYC_7773X.csv";
  LatencyField field = LatencyField::none;
  auto run = run_latency(request, &field);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(field, LatencyField::none);
  EXPECT_FALSE(run->measurement);
  EXPECT_FALSE(run->topology);
  EXPECT_FALSE(run->analysis.comparison);
  EXPECT_EQ(run->analysis.order.size(), run->matrix.size());
}

TEST(LatencyRun, ComparesWithAGivenTopologyFile) {
  LatencyRequest request;
  request.load_file = kData + "/latency/AMD_EPYC_7773X.csv";
  request.topology_file = kData + "/topologies/amd-2x-epyc7763-zen3.xml";
  auto run = run_latency(request);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->topology_source, request.topology_file);
  EXPECT_TRUE(run->analysis.comparison);
}

TEST(LatencyRun, BlamesTheInputAtFault) {
  LatencyRequest missing;
  missing.load_file = kData + "/latency/no-such-file.csv";
  LatencyField field = LatencyField::none;
  EXPECT_FALSE(run_latency(missing, &field));
  EXPECT_EQ(field, LatencyField::load_file);

  LatencyRequest bad_topology;
  bad_topology.load_file = kData + "/latency/AMD_EPYC_7773X.csv";
  bad_topology.topology_file = kData + "/topologies/no-such-machine.xml";
  field = LatencyField::none;
  EXPECT_FALSE(run_latency(bad_topology, &field));
  EXPECT_EQ(field, LatencyField::topology_file);

  // Choosing CPUs means measuring: refused with a saved matrix, before anything is read.
  LatencyRequest cpus_with_load;
  cpus_with_load.load_file = kData + "/latency/AMD_EPYC_7773X.csv";
  cpus_with_load.cpus = "0-3";
  auto refused = run_latency(cpus_with_load);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message.find("--"), std::string::npos);  // the CLI names flags
}

}  // namespace
}  // namespace threadmap::latency
