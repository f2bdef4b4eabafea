// The plan JSON is the contract with `threadmap run --plan`: what render::plan_json writes, the
// apply area's reader must read back, thread for thread, in creation order.
#include <gtest/gtest.h>

#include "src/apply/plan_file.hpp"
#include "src/render/plan_view.hpp"
#include "tests/unit/plan/plan_test_util.hpp"

namespace threadmap::plan {
namespace {

TEST(PlanJson, RunReadsWhatPlanWrites) {
  Topology topo = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/amd-2x-epyc7763-zen3.xml");
  Plan plan = test::plan_json(R"({"threads": [{"name": "main", "traits": ["background"]},
      {"name": "worker[0-3]", "traits": ["compute"]}], "edges": [{"between": ["main", "worker[0-3]"]}]})",
                              &topo, nullptr);
  nlohmann::json j = render::plan_json(plan);
  EXPECT_EQ(j["schema"], "threadmap.plan/1");
  EXPECT_EQ(j["baselines"].size(), 4u);
  auto read = apply::parse_plan(j.dump(), "written plan");
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read->assignments.size(), plan.assignments.size());
  for (std::size_t i = 0; i < plan.assignments.size(); ++i) {
    EXPECT_EQ(read->assignments[i].thread, plan.assignments[i].name);
    EXPECT_EQ(read->assignments[i].cpus, CpuSet::from_vector(plan.assignments[i].cpus));
  }
  EXPECT_EQ(read->assignments[0].thread, "main");
  EXPECT_EQ(read->assignments[4].thread, "worker3");
}

TEST(PlanJson, TextNamesModelSolverAndEveryBaseline) {
  Topology topo = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/amd-2x-epyc7763-zen3.xml");
  Plan plan = test::plan_json(
      R"({"threads": [{"name": "a"}, {"name": "b"}], "edges": [{"between": ["a", "b"]}]})", &topo,
      nullptr);
  const std::string text = render::plan_text(plan);
  for (const char* needle :
       {"model:  topology distance", "solver: branch and bound (proven optimal", "sequential",
        "compact", "scatter", "spread", "rule breaks", "ns"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
}

}  // namespace
}  // namespace threadmap::plan
