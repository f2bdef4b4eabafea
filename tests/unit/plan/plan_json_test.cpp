// The plan JSON is the contract with `threadmap run --plan`: what plan::plan_json writes, its
// reader beside it (plan/plan_file) must read back, thread for thread, in creation order, and a
// damaged plan is refused saying where.
#include <gtest/gtest.h>

#include "src/plan/plan_file.hpp"
#include "tests/unit/plan/plan_test_util.hpp"

namespace threadmap::plan {
namespace {

TEST(PlanJson, RunReadsWhatPlanWrites) {
  Topology topo = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/amd-2x-epyc7763-zen3.xml");
  Plan plan = test::plan_json(R"({"threads": [{"name": "main", "traits": ["background"]},
      {"name": "worker[0-3]", "traits": ["compute"]}], "edges": [{"between": ["main", "worker[0-3]"]}]})",
                              &topo, nullptr);
  nlohmann::json j = plan_json(plan);
  EXPECT_EQ(j["schema"], "threadmap.plan/1");
  EXPECT_EQ(j["baselines"].size(), 4u);
  auto read = parse_plan(j.dump(), "written plan");
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read->assignments.size(), plan.assignments.size());
  for (std::size_t i = 0; i < plan.assignments.size(); ++i) {
    EXPECT_EQ(read->assignments[i].thread, plan.assignments[i].thread);
    EXPECT_EQ(read->assignments[i].cpus, plan.assignments[i].cpus);
    EXPECT_EQ(read->assignments[i].memory_node, plan.assignments[i].memory_node);
  }
  EXPECT_EQ(read->model, plan.model);
  EXPECT_EQ(read->assignments[0].thread, "main");
  EXPECT_EQ(read->assignments[4].thread, "worker3");
}

TEST(PlanJson, MemoryNodesRoundTripAndADamagedPlanIsRefused) {
  Topology topo = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/amd-2x-epyc7763-zen3.xml");
  Plan plan = test::plan_json(R"({"threads": [{"name": "a", "memory-node": 0}, {"name": "b"}]})",
                              &topo, nullptr);
  nlohmann::json j = plan_json(plan);
  auto read = parse_plan(j.dump(), "written plan");
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read->assignments.size(), 2u);
  EXPECT_EQ(read->assignments[0].memory_node, 0);
  EXPECT_EQ(read->assignments[1].memory_node, -1);
  j["assignments"][1]["cpus"] = nlohmann::json::array({"two"});  // not a CPU number
  auto damaged = parse_plan(j.dump(), "damaged.json");
  ASSERT_FALSE(damaged.ok());
  EXPECT_EQ(damaged.error().code, std::errc::invalid_argument);
  EXPECT_NE(damaged.error().message.find("damaged.json"), std::string::npos);
  EXPECT_NE(damaged.error().message.find("is not a CPU number"), std::string::npos)
      << damaged.error().message;
}

}  // namespace
}  // namespace threadmap::plan
