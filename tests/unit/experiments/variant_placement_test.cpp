// CPU choice for the experiments, checked on every recorded machine in tests/data/topologies
// (so the rules hold on SMT-2, SMT-off, hybrid, multi-socket and many-NUMA machines alike).
#include "src/experiments/variant_placement.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "src/plan/machine_model.hpp"
#include "tests/unit/common/recorded_data.hpp"

namespace threadmap::experiments {
namespace {

using test_data::topology_files;

TEST(Placement, RecordedMachinesArePresent) { EXPECT_GE(topology_files().size(), 3u); }

TEST(Placement, SmtPairIsTwoSiblingsExactlyWhenACoreHasTwoPus) {
  for (const std::string& file : topology_files()) {
    SCOPED_TRACE(file);
    auto topo = Topology::load_xml(file);
    ASSERT_TRUE(topo) << topo.error().message;
    const CpuSet allowed = topo->allowed_cpus();
    bool any_smt = false;
    for (const CpuSet& core : topo->groups(Level::core))
      any_smt = any_smt || (core & allowed).count() >= 2;
    auto pair = smt_sibling_pair(*topo, allowed);
    ASSERT_EQ(pair.has_value(), any_smt);
    if (pair) {
      EXPECT_NE(pair->first, pair->second);
      EXPECT_TRUE(topo->smt_siblings(pair->first).contains(pair->second));
      EXPECT_EQ(topo->shared_level(pair->first, pair->second), Level::core);
    }
  }
}

TEST(Placement, NearestPairOnTwoCoresIsNotSiblingsAndAsCloseAsAny) {
  for (const std::string& file : topology_files()) {
    SCOPED_TRACE(file);
    auto topo = Topology::load_xml(file);
    ASSERT_TRUE(topo);
    const CpuSet allowed = topo->allowed_cpus();
    auto pair = nearest_pair_on_two_cores(*topo, allowed);
    ASSERT_EQ(pair.has_value(), topo->groups(Level::core).size() >= 2);
    if (!pair) continue;
    EXPECT_FALSE(topo->smt_siblings(pair->first).contains(pair->second));
    // No pair of CPUs on different cores shares a closer level: check every CPU against the
    // first CPU's neighbours (cheap on 384-CPU machines).
    const double d = plan::topology_distance_ns(*topo, pair->first, pair->second);
    for (int cpu : allowed.to_vector()) {
      if (topo->smt_siblings(pair->first).contains(cpu)) continue;
      EXPECT_GE(plan::topology_distance_ns(*topo, pair->first, cpu), d);
    }
  }
}

TEST(Placement, FarthestPairCrossesPackagesAndNumaNodesWhenThereAreSeveral) {
  for (const std::string& file : topology_files()) {
    SCOPED_TRACE(file);
    auto topo = Topology::load_xml(file);
    ASSERT_TRUE(topo);
    auto pair = farthest_pair(*topo, topo->allowed_cpus());
    ASSERT_TRUE(pair);
    if (topo->counts().packages > 1) {
      EXPECT_EQ(topo->shared_level(pair->first, pair->second), Level::machine);
    }
    if (topo->counts().numa_nodes > 1) {
      EXPECT_FALSE(topo->same_numa(pair->first, pair->second));
    }
    if (topo->counts().cores > 1) {
      EXPECT_FALSE(topo->smt_siblings(pair->first).contains(pair->second));
    }
  }
}

TEST(Placement, CoreSlotsAreTheSiblingsOrTheCpuAlone) {
  for (const std::string& file : topology_files()) {
    SCOPED_TRACE(file);
    auto topo = Topology::load_xml(file);
    ASSERT_TRUE(topo);
    const CpuSet allowed = topo->allowed_cpus();
    const int cpu = allowed.first();
    std::vector<int> slots = core_slots(*topo, allowed, cpu);
    const std::size_t siblings = (topo->smt_siblings(cpu) & allowed).count();
    EXPECT_EQ(slots.size(), std::min<std::size_t>(2, std::max<std::size_t>(1, siblings)));
    for (int s : slots) {
      EXPECT_TRUE(topo->smt_siblings(cpu).contains(s) || s == cpu);
    }
  }
}

TEST(Placement, SingleCpuHasNoPairs) {
  auto topo = Topology::load_xml(std::string(THREADMAP_TEST_DATA) +
                                 "/topologies/this-vm-kvm-2vcpu-epyc.xml");
  ASSERT_TRUE(topo);
  CpuSet one{topo->allowed_cpus().first()};
  EXPECT_FALSE(farthest_pair(*topo, one));
  EXPECT_FALSE(nearest_pair_on_two_cores(*topo, one));
  EXPECT_FALSE(smt_sibling_pair(*topo, one));
}

TEST(Placement, DescribeCpus) {
  EXPECT_EQ(describe_cpus(CpuSet{}), "not pinned");
  EXPECT_EQ(describe_cpus(CpuSet{3}), "CPU 3");
  EXPECT_EQ(describe_cpus(CpuSet{0, 1, 2}), "CPUs 0-2");
}

}  // namespace
}  // namespace threadmap::experiments
