// Compare like with like: on an SMT4 machine with 8 NUMA nodes (the synthetic POWER-like
// topology) the pipeline example's plan must cost no more than any baseline that keeps the
// same rules, and baselines that break rules (compute threads on SMT siblings) are marked
// infeasible instead of looking cheaper (in the plan JSON here; in the text:
// render/plan_view_test).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "src/plan/plan_file.hpp"
#include "tests/unit/plan/plan_test_util.hpp"

namespace threadmap::plan::test {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(BaselineFairness, PlanNeverLosesToAFeasibleBaselineOnSmt4With8Nodes) {
  Topology topo = load_topology(std::string(THREADMAP_TEST_DATA) +
                                "/topologies/synthetic/synthetic-2pack-8numa-smt4-power-like.xml");
  ASSERT_EQ(topo.numa_nodes().size(), 8u);
  const std::string spec =
      read(std::string(THREADMAP_SOURCE_DIR) + "/examples/specs/pipeline.json");
  ASSERT_FALSE(spec.empty());
  Plan plan = plan_json(spec, &topo, nullptr);
  ASSERT_FALSE(plan.baselines.empty());
  int infeasible = 0;
  for (const auto& [name, cost] : plan.baselines) {
    if (cost.rule_breaks() > plan.cost.rule_breaks()) {
      ++infeasible;
      continue;
    }
    EXPECT_LE(plan.cost.total(), cost.total() + 1e-6) << name;
  }
  // compact fills SMT4 cores: the 6 compute workers share cores there.
  EXPECT_GT(infeasible, 0);
  const auto j = threadmap::plan::plan_json(plan);
  bool marked = false;
  for (const auto& [name, detail] : j["baseline_breakdown"].items())
    marked = marked || !detail["feasible"].get<bool>();
  EXPECT_TRUE(marked);
}

}  // namespace
}  // namespace threadmap::plan::test
