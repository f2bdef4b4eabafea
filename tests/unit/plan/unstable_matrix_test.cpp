// a latency matrix whose pairs moved between passes is not planned on. With a
// topology the plan falls back to it and says why; no "SMT siblings (inferred from the matrix)"
// is claimed; without a topology the plan refuses, naming the reason. A matrix measured on a busy
// machine is used and said so.
#include <gtest/gtest.h>

#include <string>

#include "src/latency/matrix.hpp"
#include "src/plan/planner.hpp"
#include "tests/unit/plan/plan_test_util.hpp"

namespace threadmap::plan::test {
namespace {

// The 2-vCPU VM's topology (tests/data/topologies) and a matrix over its CPUs 0-1 whose single
// pair moved (first 125 ns, then 27 ns).
latency::Matrix moved_pair_matrix() {
  latency::Matrix m = latency::make_matrix({0, 1});
  m.at(0, 1) = m.at(1, 0) = 27;
  m.source = "moved.json";
  m.stability = latency::judge_stability(1, 1);
  return m;
}

TEST(UnstableMatrix, PlanFallsBackToTheTopologyAndSaysWhy) {
  Topology topo =
      load_topology(std::string(THREADMAP_TEST_DATA) + "/topologies/this-vm-kvm-2vcpu-epyc.xml");
  latency::Matrix m = moved_pair_matrix();
  Plan p = plan_json(R"({"threads": [{"name": "a"}, {"name": "b"}],
                        "edges": [{"between": ["a", "b"], "weight": 10}]})",
                     &topo, &m);
  EXPECT_NE(p.model.find("topology distance"), std::string::npos) << p.model;
  EXPECT_NE(p.model.find("moved.json not used"), std::string::npos) << p.model;
  EXPECT_NE(p.model.find("not pinned"), std::string::npos) << p.model;
  for (const auto& a : p.assignments)
    EXPECT_EQ(a.why.find("inferred from the matrix"), std::string::npos) << a.why;
}

TEST(UnstableMatrix, WithoutATopologyThePlanRefusesNamingTheReason) {
  latency::Matrix m = moved_pair_matrix();
  auto spec = parse_spec(R"({"threads": [{"name": "a"}]})", "spec");
  ASSERT_TRUE(spec.ok());
  PlanInputs in;
  in.matrix = &m;
  auto p = make_plan(*spec, in);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("not used"), std::string::npos) << p.error().message;
}

TEST(UnstableMatrix, AStableMatrixIsStillUsed) {
  Topology topo =
      load_topology(std::string(THREADMAP_TEST_DATA) + "/topologies/this-vm-kvm-2vcpu-epyc.xml");
  latency::Matrix m = moved_pair_matrix();
  m.stability = latency::judge_stability(0, 1);
  Plan p = plan_json(R"({"threads": [{"name": "a"}, {"name": "b"}]})", &topo, &m);
  EXPECT_NE(p.model.find("measured latency"), std::string::npos) << p.model;
}

// A matrix measured on a busy machine is used, and the plan's model says what it is.
TEST(UnstableMatrix, AMatrixMeasuredOnABusyMachineIsSaidInTheModel) {
  Topology topo =
      load_topology(std::string(THREADMAP_TEST_DATA) + "/topologies/this-vm-kvm-2vcpu-epyc.xml");
  latency::Matrix m = moved_pair_matrix();
  m.stability = latency::judge_stability(0, 1);
  m.measured_busy = "others used 63% of CPUs 0-1 just before";
  Plan p = plan_json(R"({"threads": [{"name": "a"}, {"name": "b"}]})", &topo, &m);
  EXPECT_NE(p.model.find("measured latency"), std::string::npos) << p.model;
  EXPECT_NE(p.model.find("measured while the machine was busy (others used 63%"), std::string::npos)
      << p.model;
}

}  // namespace
}  // namespace threadmap::plan::test
