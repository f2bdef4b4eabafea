// The topology model answers from the tree, not a CPU x CPU table: every pair's latency and
// relation equal TopologySteps' (the one topology distance of the project) on the recorded
// machines, Groups and multi-NUMA packages included; and the whole search stops by one deadline.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "src/plan/machine_model.hpp"
#include "src/plan/solvers.hpp"
#include "src/plan/topology_steps.hpp"

namespace {

using namespace threadmap;
using namespace threadmap::plan;

Topology load(const std::string& file) {
  auto t = Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/" + file);
  EXPECT_TRUE(t) << file;
  return *t;
}

class TreeModel : public ::testing::TestWithParam<const char*> {};

TEST_P(TreeModel, EveryPairAsTopologyStepsSaysWithoutATable) {
  Topology topo = load(GetParam());
  MachineInputs in;
  in.topology = &topo;
  auto m = build_machine(in);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_TRUE(m->latency_ns.empty());
  TopologySteps steps(topo, TopologyDistances{});
  const int n = static_cast<int>(m->size());
  // Every pair on small machines; on large ones every pair of a stride that crosses all levels.
  const int stride = n > 256 ? 7 : 1;
  for (int i = 0; i < n; i += stride)
    for (int j = 0; j < n; ++j) {
      const int a = m->cpus[i].cpu, b = m->cpus[j].cpu;
      ASSERT_DOUBLE_EQ(m->latency(i, j), steps.distance_ns(a, b)) << a << "," << b;
      ASSERT_EQ(m->relation(i, j), steps.relation(a, b)) << a << "," << b;
    }
}

INSTANTIATE_TEST_SUITE_P(Recorded, TreeModel,
                         ::testing::Values("amd-2x-epyc9654-zen4.xml",
                                           "amd-4x-opteron6200-bulldozer-8numa.xml",
                                           "dell-r740-2x-xeon-gold6230-snc2-2lm.xml",
                                           "intel-i7-1370p-raptorlake-hybrid.xml",
                                           "nvidia-dgx-spark-gb10-arm-hybrid.xml",
                                           "sgi-uv2000-24x-xeon-e5-4640.xml",
                                           "synthetic/synthetic-2pack-8cluster-4core.xml",
                                           "synthetic/synthetic-2pack-nested-groups.xml",
                                           "synthetic/synthetic-2pack-8numa-smt4-power-like.xml"));

TEST(WholeSearchDeadline, EverySolverStopsByIt) {
  SolveOptions options;
  options.local_time_limit_s = 60;
  options.exact_time_limit_s = 60;
  options.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  SolveOptions left = within_deadline(options);
  EXPECT_EQ(left.local_time_limit_s, 0);
  EXPECT_EQ(left.exact_time_limit_s, 0);
  options.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  left = within_deadline(options);
  EXPECT_GT(left.local_time_limit_s, 4);
  EXPECT_LE(left.local_time_limit_s, 5);
  options.deadline = std::chrono::steady_clock::time_point::max();
  EXPECT_EQ(within_deadline(options).local_time_limit_s, 60);
}

}  // namespace
