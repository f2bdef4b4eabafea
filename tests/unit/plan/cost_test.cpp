// The cost model: the incremental bookkeeping the solvers rely on must equal the full
// evaluation, and the topology distances must keep the documented order.
#include <gtest/gtest.h>

#include <random>

#include "src/plan/machine_model.hpp"
#include "src/plan/placement_state.hpp"
#include "src/plan/problem.hpp"
#include "tests/unit/plan/plan_test_util.hpp"

namespace threadmap::plan {
namespace {

TEST(Cost, TopologyDistancesKeepTheDocumentedOrder) {
  TopologyDistances d;
  EXPECT_LT(d.same_core_ns, d.same_l2_ns);
  EXPECT_LT(d.same_l2_ns, d.same_l3_ns);
  EXPECT_LT(d.same_l3_ns, d.same_die_ns);
  EXPECT_LT(d.same_die_ns, d.same_package_ns);
  EXPECT_LT(d.same_package_ns, d.other_numa_ns);
}

TEST(Cost, DistancesFollowTheTopology) {
  Topology topo = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/amd-2x-epyc9654-zen4.xml");
  MachineInputs in;
  in.topology = &topo;
  auto m = build_machine(in);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const int a = m->index_of(0);
  const int sibling = m->index_of(topo.smt_siblings(0).to_vector().back());
  const int other_package = m->index_of(topo.groups(Level::package).back().first());
  EXPECT_EQ(m->relation(a, sibling), "SMT siblings");
  EXPECT_EQ(m->latency(a, sibling), TopologyDistances{}.same_core_ns);
  EXPECT_EQ(m->latency(a, other_package), TopologyDistances{}.other_numa_ns);
  EXPECT_EQ(m->core_count, 192);
  EXPECT_EQ(m->domain_count, 24);
}

TEST(Cost, IncrementalStateEqualsFullEvaluation) {
  Topology topo = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/intel-i7-1370p-raptorlake-hybrid.xml");
  auto spec = parse_spec(R"({"threads": [{"name": "c[0-5]", "traits": ["compute"]},
      {"name": "l[0-2]", "traits": ["latency-critical"]}, {"name": "b[0-2]", "traits": ["background"]},
      {"name": "x", "traits": ["exclusive"]}, {"name": "y", "share-core-with": "x"}],
      "groups": [{"threads": ["c[0-5]", "l0"], "weight": 3}], "oversubscribe": true})",
                         "t");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  MachineInputs in;
  in.topology = &topo;
  auto m = build_machine(in);
  ASSERT_TRUE(m.ok());
  auto p = build_problem(*spec, *m, &topo);
  ASSERT_TRUE(p.ok()) << p.error().message;
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> any(0, static_cast<int>(m->size()) - 1);
  for (int round = 0; round < 50; ++round) {
    PlacementState s(*p);
    for (int t = 0; t < p->size(); ++t) s.add(t, any(rng));
    for (int k = 0; k < 20; ++k) {  // moves
      int t = std::uniform_int_distribution<int>(0, p->size() - 1)(rng);
      s.remove(t);
      s.add(t, any(rng));
    }
    const CostBreakdown full = evaluate(*p, s.assignment());
    // share_core is a baseline-only term (solvers keep groups together); exclude it here.
    EXPECT_NEAR(s.total(), full.objective() - full.share_core, 1e-6 * (1 + full.objective()));
  }
}

TEST(Cost, ModelSaysWhichInputItUsed) {
  Topology topo = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/this-vm-kvm-2vcpu-epyc.xml");
  Plan plan = test::plan_json(
      R"({"threads": [{"name": "a"}, {"name": "b"}], "edges": [{"between": ["a", "b"]}]})", &topo,
      nullptr);
  EXPECT_NE(plan.model.find("topology distance"), std::string::npos) << plan.model;
  latency::Matrix matrix =
      test::load_matrix(std::string(THREADMAP_TEST_DATA) + "/latency/Apple_M1_Pro.csv");
  Plan measured = test::plan_json(
      R"({"threads": [{"name": "a"}, {"name": "b"}], "edges": [{"between": ["a", "b"]}]})", nullptr,
      &matrix);
  EXPECT_NE(measured.model.find("measured latency"), std::string::npos) << measured.model;
}

}  // namespace
}  // namespace threadmap::plan
