// Every hwloc level that shares something is a distance step: Groups (Arm clusters, nested
// groups) and Dies, on synthetic topologies made by lstopo-no-graphics --input (see
// tests/data/topologies/README.md).
#include <gtest/gtest.h>

#include <set>

#include "src/plan/machine_model.hpp"
#include "src/plan/topology_steps.hpp"
#include "tests/unit/plan/plan_test_util.hpp"

namespace threadmap::plan::test {
namespace {

const std::string kDir = std::string(THREADMAP_TEST_DATA) + "/topologies/";

// Index of the group (among objects of `type` at the smallest depth holding cpu) -- compare
// cluster membership from the XML itself, by CPU sets.
CpuSet cluster_of(const Topology& topo, int cpu, int depth_rank) {
  std::vector<int> depths;
  for (const TopoObject& o : topo.objects())
    if (o.type == "Group") depths.push_back(o.depth);
  std::sort(depths.begin(), depths.end());
  depths.erase(std::unique(depths.begin(), depths.end()), depths.end());
  for (const TopoObject& o : topo.objects())
    if (o.type == "Group" && o.depth == depths.at(depth_rank) && o.cpus.contains(cpu))
      return o.cpus;
  return {};
}

TEST(GroupLevels, PingPongPairsStayInsideAFourCoreCluster) {
  Topology topo = load_topology(kDir + "synthetic/synthetic-2pack-8cluster-4core.xml");
  Plan plan = plan_json(R"({"threads": [{"name": "a0"}, {"name": "b0"}, {"name": "a1"},
      {"name": "b1"}, {"name": "a2"}, {"name": "b2"}],
      "edges": [{"between": ["a0", "b0"], "weight": 10}, {"between": ["a1", "b1"], "weight": 10},
                {"between": ["a2", "b2"], "weight": 10}]})",
                        &topo, nullptr);
  for (const char* pair : {"0", "1", "2"}) {
    int a = cpu_of(plan, std::string("a") + pair), b = cpu_of(plan, std::string("b") + pair);
    EXPECT_TRUE(cluster_of(topo, a, 0).contains(b)) << "pair " << pair << ": " << a << "," << b;
  }
  for (const auto& t : plan.assignments)
    EXPECT_NE(t.why.find("same Group0 (Cluster)"), std::string::npos) << t.why;
}

TEST(GroupLevels, EachHwlocLevelIsADistanceStep) {
  TopologyDistances d;
  {
    Topology topo = load_topology(kDir + "synthetic/synthetic-2pack-8cluster-4core.xml");
    TopologySteps steps(topo, d);
    // CPUs 0-3 one cluster, 4-7 the next, 32+ the other package.
    EXPECT_LT(steps.distance_ns(0, 1), steps.distance_ns(0, 4));
    EXPECT_LT(steps.distance_ns(0, 4), steps.distance_ns(0, 32));
    EXPECT_EQ(steps.relation(0, 1), "same Group0 (Cluster)");
  }
  {
    Topology topo = load_topology(kDir + "synthetic/synthetic-2pack-2die-2l3-4core-smt2.xml");
    TopologySteps steps(topo, d);
    // pack:2 die:2 l3:2 core:4 pu:2 -> 8 CPUs per L3, 16 per die, 32 per package.
    EXPECT_EQ(steps.relation(0, 1), "SMT siblings");
    EXPECT_EQ(steps.relation(0, 2), "same L3");
    EXPECT_EQ(steps.relation(0, 8), "same die");
    EXPECT_EQ(steps.relation(0, 16), "same package");
    EXPECT_LT(steps.distance_ns(0, 2), steps.distance_ns(0, 8));
    EXPECT_LT(steps.distance_ns(0, 8), steps.distance_ns(0, 16));
    EXPECT_LT(steps.distance_ns(0, 16), steps.distance_ns(0, 32));
  }
  {
    Topology topo = load_topology(kDir + "synthetic/synthetic-2pack-nested-groups.xml");
    TopologySteps steps(topo, d);
    ASSERT_EQ(steps.group_names().size(), 2u);
    EXPECT_EQ(steps.group_names()[0], "Group0");
    EXPECT_EQ(steps.group_names()[1], "Group1");
    // pack:2 group:2 group:2 core:4: inner groups of 4 CPUs, outer of 8.
    EXPECT_EQ(steps.relation(0, 1), "same Group1");
    EXPECT_EQ(steps.relation(0, 4), "same Group0");
    EXPECT_LT(steps.distance_ns(0, 1), steps.distance_ns(0, 4));
    EXPECT_LT(steps.distance_ns(0, 4), steps.distance_ns(0, 8));
    EXPECT_LT(steps.distance_ns(0, 8), steps.distance_ns(0, 16));
  }
}

TEST(GroupLevels, RecordedSncGroupsAreALevel) {
  // Dell R740 in SNC2: hwloc puts each sub-NUMA half of a socket in a Group (the XML's 4 Group
  // objects, one per NUMA node). They are a level of the model, and a pair inside one stays in
  // one NUMA node.
  Topology topo = load_topology(kDir + "dell-r740-2x-xeon-gold6230-snc2-2lm.xml");
  TopologySteps steps(topo, TopologyDistances{});
  ASSERT_EQ(steps.group_names().size(), 1u);
  std::set<int> groups;
  for (int cpu : topo.complete_cpus().to_vector()) groups.insert(steps.group_of(cpu, 0));
  EXPECT_EQ(groups.size(), 4u);
  Plan plan = plan_json(R"({"threads": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
      "edges": [{"between": ["a", "b"], "weight": 10}, {"between": ["b", "c"], "weight": 10}]})",
                        &topo, nullptr);
  const int a = cpu_of(plan, "a"), b = cpu_of(plan, "b"), c = cpu_of(plan, "c");
  EXPECT_EQ(steps.group_of(a, 0), steps.group_of(b, 0));
  EXPECT_EQ(steps.group_of(b, 0), steps.group_of(c, 0));
  EXPECT_EQ(topo.pu(a)->numa_os, topo.pu(c)->numa_os);
}

}  // namespace
}  // namespace threadmap::plan::test
