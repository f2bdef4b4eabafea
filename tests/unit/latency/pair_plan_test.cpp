// The pass schedule (every pair twice, re-checks later and interleaved) and the --quick classes
// on recorded topologies.
#include "src/latency/pair_plan.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace threadmap;

namespace {

TEST(PairPlan, EveryPairTwiceRecheckLaterAndInterleaved) {
  std::mt19937_64 rng(5);
  const std::size_t pairs = 200;
  auto tasks = latency::schedule_passes(pairs, true, rng);
  ASSERT_EQ(tasks.size(), 2 * pairs);
  std::vector<long> first(pairs, -1), second(pairs, -1);
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    auto& slot = tasks[k].pass == 0 ? first : second;
    ASSERT_EQ(slot[tasks[k].pair], -1) << "pair " << tasks[k].pair << " pass twice";
    slot[tasks[k].pair] = static_cast<long>(k);
  }
  long last_first = 0, first_recheck = static_cast<long>(tasks.size());
  bool shuffled = false;
  for (std::size_t p = 0; p < pairs; ++p) {
    ASSERT_GE(first[p], 0);
    ASSERT_GT(second[p], first[p]);
    last_first = std::max(last_first, first[p]);
    first_recheck = std::min(first_recheck, second[p]);
    shuffled = shuffled || (p > 0 && first[p] < first[p - 1]);
  }
  EXPECT_TRUE(shuffled);
  EXPECT_LT(first_recheck, last_first) << "re-checks must be interleaved with first passes";
}

TEST(PairPlan, NoRecheckMeansOnePassEach) {
  std::mt19937_64 rng(1);
  auto tasks = latency::schedule_passes(10, false, rng);
  ASSERT_EQ(tasks.size(), 10u);
  std::set<std::size_t> seen;
  for (auto& t : tasks) {
    EXPECT_EQ(t.pass, 0);
    seen.insert(t.pair);
  }
  EXPECT_EQ(seen.size(), 10u);
}

TEST(PairPlan, QuickClassesOnTwoSocketEpycWithSmt) {
  auto topo =
      Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/amd-2x-epyc9654-zen4.xml");
  ASSERT_TRUE(topo) << topo.error().message;
  int cpu0 = topo->complete_cpus().first();
  CpuSet sib = topo->smt_siblings(cpu0) - CpuSet{cpu0};
  ASSERT_FALSE(sib.empty());
  EXPECT_EQ(latency::pair_class(*topo, cpu0, sib.first()), "same core (SMT siblings)");
  // Another core of CPU 0's L3 and a CPU of the other package.
  CpuSet l3;
  for (const auto& g : topo->groups(Level::l3)) {
    if (g.contains(cpu0)) l3 = g;
  }
  CpuSet other_core = l3 - topo->smt_siblings(cpu0);
  ASSERT_FALSE(other_core.empty());
  EXPECT_EQ(latency::pair_class(*topo, cpu0, other_core.first()).rfind("share l3", 0), 0u);
  auto packages = topo->groups(Level::package);
  ASSERT_EQ(packages.size(), 2u);
  EXPECT_EQ(latency::pair_class(*topo, packages[0].first(), packages[1].first())
                .rfind("different packages", 0),
            0u);
  // All pairs of the machine fall into a handful of classes: what --quick measures.
  std::map<std::string, int> classes;
  auto cpus = topo->complete_cpus().to_vector();
  for (std::size_t i = 0; i < cpus.size(); i += 7) {
    for (std::size_t j = i + 1; j < cpus.size(); j += 5) {
      ++classes[latency::pair_class(*topo, cpus[i], cpus[j])];
    }
  }
  EXPECT_GE(classes.size(), 3u);
  EXPECT_LE(classes.size(), 12u);
}

TEST(PairPlan, HybridClassesNameTheCpuKinds) {
  auto topo = Topology::load_xml(std::string(THREADMAP_TEST_DATA) +
                                 "/topologies/intel-i7-1370p-raptorlake-hybrid.xml");
  ASSERT_TRUE(topo) << topo.error().message;
  ASSERT_EQ(topo->cpu_kinds().size(), 2u);
  int a = topo->cpu_kinds()[0].cpus.first();
  int b = topo->cpu_kinds()[1].cpus.first();
  EXPECT_NE(latency::pair_class(*topo, a, b).find("CPU kinds 0/1"), std::string::npos)
      << latency::pair_class(*topo, a, b);
}

}  // namespace
