// The plan as text (`threadmap plan` without --json): the model and solver it was made with,
// every baseline beside it, and baselines that break the plan's rules marked infeasible.
#include "src/render/plan_view.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/unit/plan/plan_test_util.hpp"

namespace threadmap::plan::test {
namespace {

TEST(PlanText, NamesModelSolverAndEveryBaseline) {
  Topology topo =
      load_topology(std::string(THREADMAP_TEST_DATA) + "/topologies/amd-2x-epyc7763-zen3.xml");
  Plan plan = plan_json(
      R"({"threads": [{"name": "a"}, {"name": "b"}], "edges": [{"between": ["a", "b"]}]})", &topo,
      nullptr);
  const std::string text = render::plan_text(plan);
  for (const char* needle :
       {"model:  topology distance", "solver: branch and bound (proven optimal", "sequential",
        "compact", "scatter", "spread", "rule breaks", "ns"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
}

TEST(PlanText, MarksBaselinesThatBreakRulesInfeasible) {
  // compact fills the SMT4 cores of this synthetic POWER-like machine: the pipeline example's
  // compute workers share cores there, which the plan's rules forbid.
  Topology topo = load_topology(std::string(THREADMAP_TEST_DATA) +
                                "/topologies/synthetic/synthetic-2pack-8numa-smt4-power-like.xml");
  std::ifstream in(std::string(THREADMAP_SOURCE_DIR) + "/examples/specs/pipeline.json");
  std::stringstream spec;
  spec << in.rdbuf();
  ASSERT_FALSE(spec.str().empty());
  Plan plan = plan_json(spec.str(), &topo, nullptr);
  const std::string text = render::plan_text(plan);
  EXPECT_NE(text.find("infeasible"), std::string::npos) << text;
}

}  // namespace
}  // namespace threadmap::plan::test
