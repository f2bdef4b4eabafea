// Plan, order and skip translation into pin rules (the policies are tested in tests/unit/plan).
#include "src/apply/placement.hpp"

#include <gtest/gtest.h>

#include <set>

namespace threadmap::apply {
namespace {

Topology load(const std::string& file) {
  auto topo = Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/" + file);
  EXPECT_TRUE(topo.ok()) << file;
  return std::move(topo.value());
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
  plan::PlanFile plan;
  plan.assignments = {
      {"main", CpuSet{0}}, {"a-very-long-thread-name", CpuSet{1}}, {"b", CpuSet{2}}};
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
