// encode_pin_config: validation of user input, and agreement with the C parser that reads it.
#include "src/apply/pin_env.hpp"

#include <gtest/gtest.h>

#include "src/apply/placement.hpp"
#include "tests/unit/pin/pin_test_util.hpp"

namespace threadmap::apply {
namespace {

const CpuSet kAllowed = CpuSet::range(0, 7);

TEST(EncodePinConfig, EmptyRulesGiveTheHeader) {
  auto text = encode_pin_config(PinRules{}, kAllowed);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(*text, "tm-pin/1");
}

TEST(EncodePinConfig, RoundTripsThroughThePreloadParser) {
  PinRules rules;
  rules.main_cpus = CpuSet{0};
  rules.slots = {CpuSet{1}, std::nullopt, CpuSet{2, 3}};
  rules.cycle = {CpuSet{4}, CpuSet{5}};
  rules.by_name = {{"worker-*", CpuSet{6}}};
  rules.by_library = {{"libgomp*", CpuSet{7}}};
  rules.skip_indexes = {3};
  rules.skip_names = {"helper*"};
  rules.skip_libraries = {"libfoo*"};
  rules.inherit = true;
  rules.override_affinity = true;
  auto text = encode_pin_config(rules, kAllowed);
  ASSERT_TRUE(text.ok()) << text.error().message;
  auto parsed = parse_config(*text);
  ASSERT_TRUE(parsed.ok) << parsed.error << " in " << *text;
  const auto& c = parsed.config;
  EXPECT_EQ(cpus_of(c, c.main_set), (std::vector<int>{0}));
  EXPECT_EQ(c.override_affinity, 1);
  EXPECT_EQ(cpus_of(c, tm__decide_slot(&c, 0).set), (std::vector<int>{1}));
  EXPECT_EQ(cpus_of(c, tm__decide_slot(&c, 1).set), (std::vector<int>{5}));  // cycle[1 % 2]
  EXPECT_EQ(cpus_of(c, tm__decide_slot(&c, 2).set), (std::vector<int>{2, 3}));
  EXPECT_EQ(cpus_of(c, tm__decide_name(&c, "worker-3").set), (std::vector<int>{6}));
  EXPECT_EQ(cpus_of(c, tm__decide_created(&c, 0, "libgomp.so.1").set), (std::vector<int>{7}));
  EXPECT_EQ(tm__decide_created(&c, 3, nullptr).action, TM__ACTION_RESTORE);
  EXPECT_EQ(tm__decide_created(&c, 0, "libfoo.so").action, TM__ACTION_RESTORE);
  EXPECT_EQ(tm__decide_name(&c, "helper-1").action, TM__ACTION_RESTORE);
  EXPECT_EQ(c.inherit, 1);
}

TEST(EncodePinConfig, RejectsCpusOutsideTheAllowedSet) {
  PinRules rules;
  rules.slots = {CpuSet{9}};
  auto text = encode_pin_config(rules, kAllowed);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().message.find("9"), std::string::npos);
  EXPECT_NE(text.error().message.find("0-7"), std::string::npos);
}

TEST(EncodePinConfig, RejectsEmptySetsAndBadPatterns) {
  PinRules empty_set;
  empty_set.main_cpus = CpuSet{};
  EXPECT_FALSE(encode_pin_config(empty_set, kAllowed).ok());
  PinRules semicolon;
  semicolon.by_name = {{"a;main=1", CpuSet{1}}};
  EXPECT_FALSE(encode_pin_config(semicolon, kAllowed).ok());
  PinRules control;
  control.skip_names = {"a\nb"};
  EXPECT_FALSE(encode_pin_config(control, kAllowed).ok());
  PinRules bad_index;
  bad_index.skip_indexes = {-1};
  EXPECT_FALSE(encode_pin_config(bad_index, kAllowed).ok());
}

TEST(EncodePinConfig, PlanNamesWithGlobCharactersMatchOnlyThemselves) {
  plan::PlanFile plan;
  plan.assignments = {{"io[1]*", CpuSet{1}}};
  auto text = encode_pin_config(rules_from_plan(plan, /*by_name=*/true), kAllowed);
  ASSERT_TRUE(text.ok());
  auto parsed = parse_config(*text);
  ASSERT_TRUE(parsed.ok) << parsed.error;
  EXPECT_EQ(tm__decide_name(&parsed.config, "io[1]*").action, TM__ACTION_SET);
  EXPECT_EQ(tm__decide_name(&parsed.config, "io1x").action, TM__ACTION_NONE);
}

TEST(EncodePinConfig, MemoryPolicyAndPlanNodesRoundTrip) {
  // A plan whose threads carry memory nodes (OS numbers), the way `run --plan` reads it.
  auto plan = plan::parse_plan(R"({"schema": "threadmap.plan/1", "assignments": [
      {"thread": "main", "cpus": [0], "memory_node": 2},
      {"thread": "a", "cpus": [1]},
      {"thread": "b", "cpus": [2], "memory_node": 3}]})",
                               "test");
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  PinRules rules = rules_from_plan(*plan, /*by_name=*/false);
  EXPECT_EQ(rules.main_memory_node, 2);
  EXPECT_EQ(rules.slot_memory_nodes, (std::vector<int>{-1, 3}));
  auto text = encode_pin_config(rules, kAllowed);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(*text, "tm-pin/1;main=0;slot=0:1;slot=1:2;mainmem=2;slotmem=1:3");
  auto parsed = parse_config(*text);
  ASSERT_TRUE(parsed.ok) << parsed.error;
  EXPECT_EQ(parsed.config.main_mem_node, 2);
  EXPECT_EQ(tm__slot_memory_node(&parsed.config, 0), -1);
  EXPECT_EQ(tm__slot_memory_node(&parsed.config, 1), 3);
  EXPECT_EQ(parsed.config.mem_mode, TM__MEM_UNSET);

  PinRules mem;
  mem.memory = "bind:0,2-3";
  auto mem_text = encode_pin_config(mem, kAllowed);
  ASSERT_TRUE(mem_text.ok());
  EXPECT_EQ(*mem_text, "tm-pin/1;mem=bind:0,2-3");
  auto mem_parsed = parse_config(*mem_text);
  ASSERT_TRUE(mem_parsed.ok) << mem_parsed.error;
  EXPECT_EQ(mem_parsed.config.mem_mode, TM__MEM_BIND);
  EXPECT_EQ(mem_parsed.config.mem_max_node, 3);

  PinRules bad_node;
  bad_node.main_memory_node = 1024;
  EXPECT_FALSE(encode_pin_config(bad_node, kAllowed).ok());
  PinRules bad_text;
  bad_text.memory = "bind:0;main=1";
  EXPECT_FALSE(encode_pin_config(bad_text, kAllowed).ok());
}

TEST(EncodePinConfig, ByNamePlanNodesRoundTrip) {
  auto plan = plan::parse_plan(R"({"schema": "threadmap.plan/1", "assignments": [
      {"thread": "io[1]", "cpus": [1], "memory_node": 1}, {"thread": "w", "cpus": [2]}]})",
                               "test");
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  auto text = encode_pin_config(rules_from_plan(*plan, /*by_name=*/true), kAllowed);
  ASSERT_TRUE(text.ok()) << text.error().message;
  auto parsed = parse_config(*text);
  ASSERT_TRUE(parsed.ok) << parsed.error << " in " << *text;
  EXPECT_EQ(tm__name_memory_node(&parsed.config, "io[1]"), 1);
  EXPECT_EQ(tm__name_memory_node(&parsed.config, "io1"), -1);  // glob characters are literal
  EXPECT_EQ(tm__name_memory_node(&parsed.config, "w"), -1);
}

}  // namespace
}  // namespace threadmap::apply
