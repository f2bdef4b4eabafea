// Policies over real machines' topologies, and plan/skip translation.
#include <gtest/gtest.h>

#include <set>

#include "src/apply/placement.hpp"

namespace threadmap::apply {
namespace {

Topology load(const std::string& file) {
  auto topo = Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/" + file);
  EXPECT_TRUE(topo.ok()) << file;
  return std::move(topo.value());
}

TEST(Policy, ParsesNamesAndRejectsOthers) {
  EXPECT_EQ(*parse_policy("compact"), Policy::compact);
  EXPECT_EQ(*parse_policy("scatter"), Policy::scatter);
  EXPECT_EQ(*parse_policy("round-robin"), Policy::round_robin);
  EXPECT_FALSE(parse_policy("spread").ok());
}

TEST(Policy, EveryPolicyUsesEachCpuOnce) {
  Topology topo = load("amd-2x-epyc9654-zen4.xml");
  for (Policy p : {Policy::compact, Policy::scatter, Policy::round_robin}) {
    auto order = order_cpus(topo, topo.complete_cpus(), p);
    EXPECT_EQ(order.size(), topo.complete_cpus().count());
    EXPECT_EQ(std::set<int>(order.begin(), order.end()).size(), order.size());
  }
}

TEST(Policy, ScatterAlternatesPackagesThenSpreadsOverL3s) {
  Topology topo = load("amd-2x-epyc7763-zen3.xml");
  auto order = order_cpus(topo, topo.complete_cpus(), Policy::scatter);
  ASSERT_GE(order.size(), 32u);
  // The first threads land on different packages in turn ...
  for (size_t k = 0; k + 1 < 16; ++k)
    EXPECT_NE(topo.pu(order[k])->package, topo.pu(order[k + 1])->package) << k;
  // ... and the first 16 cover all 16 L3 domains (8 per package) before any L3 is reused.
  std::set<int> l3s;
  for (size_t k = 0; k < 16; ++k) l3s.insert(topo.pu(order[k])->l3);
  EXPECT_EQ(l3s.size(), 16u);
}

TEST(Policy, ScatterPutsSmtSiblingsLast) {
  Topology topo = load("intel-2x-xeonmax9460-sapphirerapids.xml");
  auto order = order_cpus(topo, topo.complete_cpus(), Policy::scatter);
  std::set<int> cores;
  size_t cores_total = static_cast<size_t>(topo.counts().cores);
  for (size_t k = 0; k < cores_total; ++k) cores.insert(topo.pu(order[k])->core);
  EXPECT_EQ(cores.size(), cores_total);  // one PU per core before any sibling
}

TEST(Policy, CompactFillsCoresAndCachesInOrder) {
  Topology topo = load("intel-2x-xeonmax9460-sapphirerapids.xml");
  auto order = order_cpus(topo, topo.complete_cpus(), Policy::compact);
  // SMT siblings are adjacent: threads 0 and 1 share a core.
  EXPECT_EQ(topo.pu(order[0])->core, topo.pu(order[1])->core);
  EXPECT_EQ(topo.pu(order[0])->package, topo.pu(order[order.size() / 2 - 1])->package);
}

TEST(Policy, RoundRobinIsAscendingOsNumbers) {
  Topology topo = load("intel-2x-xeonmax9460-sapphirerapids.xml");
  auto order = order_cpus(topo, CpuSet{5, 1, 3}, Policy::round_robin);
  EXPECT_EQ(order, (std::vector<int>{1, 3, 5}));
}

TEST(Rules, FromOrderGivesMainTheFirstCpuAndCyclesTheRest) {
  PinRules rules = rules_from_order({4, 5, 6});
  ASSERT_TRUE(rules.main_cpus);
  EXPECT_EQ(rules.main_cpus->to_list(), "4");
  ASSERT_EQ(rules.cycle.size(), 3u);
  EXPECT_EQ(rules.cycle[0].to_list(), "5");  // first created thread
  EXPECT_EQ(rules.cycle[1].to_list(), "6");
  EXPECT_EQ(rules.cycle[2].to_list(), "4");  // then wraps around
}

TEST(Rules, FromPlanByOrderAndByName) {
  PlanFile plan;
  plan.assignments = {{"main", CpuSet{0}}, {"a-very-long-thread-name", CpuSet{1}}, {"b", CpuSet{2}}};
  PinRules ordered = rules_from_plan(plan, false);
  EXPECT_EQ(ordered.main_cpus->to_list(), "0");
  ASSERT_EQ(ordered.slots.size(), 2u);
  EXPECT_EQ(ordered.slots[1]->to_list(), "2");
  EXPECT_TRUE(ordered.by_name.empty());
  PinRules named = rules_from_plan(plan, true);
  EXPECT_TRUE(named.slots.empty());
  ASSERT_EQ(named.by_name.size(), 2u);
  EXPECT_EQ(named.by_name[0].pattern, "a-very-long-thr");  // the kernel keeps 15 characters
}

TEST(Rules, SkipItems) {
  PinRules rules;
  ASSERT_TRUE(add_skips(rules, {"0", "lib:libgomp*", "helper*"}).ok());
  EXPECT_EQ(rules.skip_indexes, (std::vector<long>{0}));
  EXPECT_EQ(rules.skip_libraries, (std::vector<std::string>{"libgomp*"}));
  EXPECT_EQ(rules.skip_names, (std::vector<std::string>{"helper*"}));
  EXPECT_FALSE(add_skips(rules, {""}).ok());
  EXPECT_FALSE(add_skips(rules, {"lib:"}).ok());
  EXPECT_FALSE(add_skips(rules, {"99999999999"}).ok());
}

TEST(Rules, LibraryRuleResolvesCpus) {
  Topology topo = load("intel-2x-xeonmax9460-sapphirerapids.xml");
  PinRules rules;
  ASSERT_TRUE(add_library_rule(rules, topo, "libgomp*=0-3").ok());
  EXPECT_EQ(rules.by_library[0].pattern, "libgomp*");
  EXPECT_EQ(rules.by_library[0].cpus.to_list(), "0-3");
  EXPECT_FALSE(add_library_rule(rules, topo, "libgomp*").ok());
  EXPECT_FALSE(add_library_rule(rules, topo, "=1").ok());
  EXPECT_FALSE(add_library_rule(rules, topo, "x=nonsense").ok());
}

}  // namespace
}  // namespace threadmap::apply
