// `plan --ranks N` as one library call on a recorded machine: the shares cover the CPUs once,
// each refusal says what it is about (a value, or the topology), and an export names the host.
#include "src/cluster/rank_plan.hpp"

#include <gtest/gtest.h>

namespace threadmap::cluster {
namespace {

RankPlanRequest on_epyc(int ranks) {
  RankPlanRequest request;
  request.ranks = ranks;
  request.topology_file = std::string(THREADMAP_TEST_DATA) + "/topologies/amd-2x-epyc7763-zen3.xml";
  return request;
}

TEST(RankPlan, TheSharesCoverTheAllowedCpusOnce) {
  RankPlan plan = plan_ranks(on_epyc(2));
  ASSERT_FALSE(plan.refused.has_value()) << plan.refused->message;
  ASSERT_EQ(plan.shares.size(), 2u);
  EXPECT_TRUE((plan.shares[0].cpus & plan.shares[1].cpus).empty());
  EXPECT_FALSE(plan.shares[0].cpus.empty());
  EXPECT_TRUE(plan.exported.empty());  // no format asked for
}

TEST(RankPlan, AnExportNamesTheHostGiven) {
  RankPlanRequest request = on_epyc(2);
  request.format = RankExport::rankfile;
  request.host = "node-a7";
  RankPlan plan = plan_ranks(request);
  ASSERT_FALSE(plan.refused.has_value()) << plan.refused->message;
  EXPECT_NE(plan.exported.find("node-a7"), std::string::npos) << plan.exported;
}

TEST(RankPlan, EachRefusalSaysWhatItIsAbout) {
  RankPlanRequest bad_allowed = on_epyc(2);
  bad_allowed.allowed = "no-such-cpus";
  RankPlan a = plan_ranks(bad_allowed);
  ASSERT_TRUE(a.refused.has_value());
  EXPECT_EQ(a.refused_field, RankPlanField::allowed);

  RankPlan r = plan_ranks(on_epyc(0));
  ASSERT_TRUE(r.refused.has_value());
  EXPECT_EQ(r.refused_field, RankPlanField::ranks);

  RankPlanRequest missing = on_epyc(2);
  missing.topology_file = "/nonexistent/topology.xml";
  RankPlan t = plan_ranks(missing);
  ASSERT_TRUE(t.refused.has_value());
  EXPECT_EQ(t.refused_field, RankPlanField::topology);
}

}  // namespace
}  // namespace threadmap::cluster
