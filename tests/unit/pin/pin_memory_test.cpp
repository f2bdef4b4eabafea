// TM_PIN_CONFIG memory entries (mem=, mainmem=, slotmem=): parsed strictly by the preload, and
// the decision each thread's set_mempolicy follows.
#include <gtest/gtest.h>

#include <string>

#include "tests/unit/pin/pin_test_util.hpp"

namespace {

std::vector<int> nodes_of(const tm__pin_config& c) {
  std::vector<int> out;
  for (int n = 0; n <= TM_PIN_MAX_NODE; ++n)
    if ((c.mem_nodes[n / (sizeof(unsigned long) * 8)] >> (n % (sizeof(unsigned long) * 8))) & 1UL)
      out.push_back(n);
  return out;
}

TEST(PinMemoryConfig, NoMemoryEntriesLeaveThePolicyAlone) {
  auto p = parse_config("tm-pin/1;main=0");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.config.mem_mode, TM__MEM_UNSET);
  EXPECT_FALSE(p.config.has_mem_rules);
  EXPECT_EQ(tm__decide_memory(&p.config, -1).mode, TM__MEM_UNSET);
}

TEST(PinMemoryConfig, ParsesEachMode) {
  auto local = parse_config("tm-pin/1;mem=local");
  ASSERT_TRUE(local.ok) << local.error;
  EXPECT_EQ(local.config.mem_mode, TM__MEM_LOCAL);
  EXPECT_TRUE(nodes_of(local.config).empty());

  auto bind = parse_config("tm-pin/1;mem=bind:0,2-3");
  ASSERT_TRUE(bind.ok) << bind.error;
  EXPECT_EQ(bind.config.mem_mode, TM__MEM_BIND);
  EXPECT_EQ(nodes_of(bind.config), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(bind.config.mem_max_node, 3);

  auto interleave = parse_config("tm-pin/1;mem=interleave:0-7");
  ASSERT_TRUE(interleave.ok) << interleave.error;
  EXPECT_EQ(interleave.config.mem_mode, TM__MEM_INTERLEAVE);
  EXPECT_EQ(nodes_of(interleave.config).size(), 8u);

  auto preferred = parse_config("tm-pin/1;mem=preferred:1023");
  ASSERT_TRUE(preferred.ok) << preferred.error;
  EXPECT_EQ(preferred.config.mem_mode, TM__MEM_PREFERRED);
  EXPECT_EQ(nodes_of(preferred.config), (std::vector<int>{1023}));
}

TEST(PinMemoryConfig, MalformedMemoryEntriesInvalidateTheWholeConfig) {
  // The preload then runs the program as if it were not loaded (and says so).
  for (const char* bad : {"tm-pin/1;mem=",
                          "tm-pin/1;mem=bind",
                          "tm-pin/1;mem=bind:",
                          "tm-pin/1;mem=bind:x",
                          "tm-pin/1;mem=bind:1024",
                          "tm-pin/1;mem=bind:0,",
                          "tm-pin/1;mem=bind:3-1",
                          "tm-pin/1;mem=local:0",
                          "tm-pin/1;mem=preferred:0,1",
                          "tm-pin/1;mem=preferred:0-1",
                          "tm-pin/1;mem=membind:0",
                          "tm-pin/1;mem=local;mem=local",
                          "tm-pin/1;mainmem=",
                          "tm-pin/1;mainmem=-1",
                          "tm-pin/1;mainmem=1024",
                          "tm-pin/1;mainmem=1;mainmem=2",
                          "tm-pin/1;slotmem=0",
                          "tm-pin/1;slotmem=0:",
                          "tm-pin/1;slotmem=:1",
                          "tm-pin/1;slotmem=0:1;slotmem=0:2",
                          "tm-pin/1;slotmem=0:5000"}) {
    auto p = parse_config(bad);
    EXPECT_FALSE(p.ok) << bad;
    EXPECT_NE(p.error.find("TM_PIN_CONFIG"), std::string::npos) << bad << ": " << p.error;
  }
}

TEST(PinMemoryConfig, PerThreadNodesWinThenMemThenDefault) {
  auto p = parse_config("tm-pin/1;mainmem=1;slotmem=0:2;slotmem=3:0;slot=1:5");
  ASSERT_TRUE(p.ok) << p.error;
  const auto& c = p.config;
  EXPECT_EQ(c.main_mem_node, 1);
  EXPECT_EQ(tm__slot_memory_node(&c, 0), 2);
  EXPECT_EQ(tm__slot_memory_node(&c, 1), -1);  // a CPU slot rule without a memory node
  EXPECT_EQ(tm__slot_memory_node(&c, 3), 0);
  EXPECT_EQ(tm__slot_memory_node(&c, 4), -1);
  EXPECT_EQ(tm__slot_memory_node(&c, -1), -1);
  // Slot memory does not invent CPU rules: slot 0 has none.
  EXPECT_EQ(tm__decide_slot(&c, 0).action, TM__ACTION_RESTORE);

  tm__mem_decision main = tm__decide_memory(&c, c.main_mem_node);
  EXPECT_EQ(main.mode, TM__MEM_PREFERRED);
  EXPECT_EQ(main.node, 1);
  // A thread without a node gets the default policy back (not the node its creator had).
  EXPECT_EQ(tm__decide_memory(&c, -1).mode, TM__MEM_DEFAULT);

  auto with_mem = parse_config("tm-pin/1;mem=interleave:0-1;slotmem=0:1");
  ASSERT_TRUE(with_mem.ok) << with_mem.error;
  EXPECT_EQ(tm__decide_memory(&with_mem.config, -1).mode, TM__MEM_INTERLEAVE);
  EXPECT_EQ(tm__decide_memory(&with_mem.config, 1).mode, TM__MEM_PREFERRED);
}

TEST(PinMemoryConfig, NameRulesCarryANode) {
  auto p = parse_config("tm-pin/1;name=io*:1;namemem=io*:3;namemem=w\\[1\\]:0");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_TRUE(p.config.has_mem_rules);
  EXPECT_TRUE(p.config.has_name_rules);
  EXPECT_EQ(tm__name_memory_node(&p.config, "io-7"), 3);
  EXPECT_EQ(tm__name_memory_node(&p.config, "w[1]"), 0);
  EXPECT_EQ(tm__name_memory_node(&p.config, "other"), -1);
  EXPECT_EQ(tm__name_memory_node(&p.config, nullptr), -1);
  // The node rule does not change where the thread runs.
  tm__decision d = tm__decide_name(&p.config, "io-7");
  EXPECT_EQ(d.action, TM__ACTION_SET);
  EXPECT_EQ(cpus_of(p.config, d.set), (std::vector<int>{1}));
  for (const char* bad : {"tm-pin/1;namemem=io", "tm-pin/1;namemem=:1", "tm-pin/1;namemem=io:",
                          "tm-pin/1;namemem=io:1024", "tm-pin/1;namemem=io:x"})
    EXPECT_FALSE(parse_config(bad).ok) << bad;
}

}  // namespace
