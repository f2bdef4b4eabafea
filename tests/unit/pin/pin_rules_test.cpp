// Rule decisions: which rule wins for a new thread, a slot and a name.
#include <gtest/gtest.h>

#include <string>

#include "tests/unit/pin/pin_test_util.hpp"

namespace {

TEST(Glob, MatchesLikeFnmatch) {
  EXPECT_TRUE(tm__glob_match("worker*", "worker-12"));
  EXPECT_TRUE(tm__glob_match("*", ""));
  EXPECT_TRUE(tm__glob_match("w?rker", "worker"));
  EXPECT_TRUE(tm__glob_match("lib[gs]omp*", "libgomp.so.1"));
  EXPECT_TRUE(tm__glob_match("[!a]x", "bx"));
  EXPECT_TRUE(tm__glob_match("t[0-3]", "t2"));
  EXPECT_TRUE(tm__glob_match("a*b*c", "aXXbYYbZc"));
  EXPECT_TRUE(tm__glob_match("x\\*", "x*"));
  EXPECT_FALSE(tm__glob_match("x\\*", "xy"));
  EXPECT_FALSE(tm__glob_match("worker*", "work"));
  EXPECT_FALSE(tm__glob_match("t[0-3]", "t5"));
  EXPECT_FALSE(tm__glob_match("[!a]x", "ax"));
  EXPECT_FALSE(tm__glob_match("abc", "abcd"));
  EXPECT_TRUE(tm__glob_match("a[", "a["));  // malformed bracket = literal
}

TEST(Decide, SkipIndexWinsAtCreation) {
  auto p = parse_config("tm-pin/1;skip=1;lib=libgomp*:0");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(tm__decide_created(&p.config, 1, "libgomp.so.1").action, TM__ACTION_RESTORE);
  auto d = tm__decide_created(&p.config, 0, "libgomp.so.1");
  EXPECT_EQ(d.action, TM__ACTION_SET);
  EXPECT_EQ(cpus_of(p.config, d.set), (std::vector<int>{0}));
  EXPECT_EQ(tm__decide_created(&p.config, 2, "libstdc++.so.6").action, TM__ACTION_SLOT);
  EXPECT_EQ(tm__decide_created(&p.config, 2, nullptr).action, TM__ACTION_SLOT);
}

TEST(Decide, FirstLibraryRuleInOrderWins) {
  auto p = parse_config("tm-pin/1;skiplib=libgomp*;lib=lib*:1");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(tm__decide_created(&p.config, 0, "libgomp.so.1").action, TM__ACTION_RESTORE);
  EXPECT_EQ(tm__decide_created(&p.config, 0, "libstdc++.so.6").action, TM__ACTION_SET);
}

TEST(Decide, SlotRuleThenCycleThenNothing) {
  auto p = parse_config("tm-pin/1;slot=1:3;cycle=0/1");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(cpus_of(p.config, tm__decide_slot(&p.config, 0).set), (std::vector<int>{0}));
  EXPECT_EQ(cpus_of(p.config, tm__decide_slot(&p.config, 1).set), (std::vector<int>{3}));
  EXPECT_EQ(cpus_of(p.config, tm__decide_slot(&p.config, 5).set), (std::vector<int>{1}));
  EXPECT_EQ(cpus_of(p.config, tm__decide_slot(&p.config, 1000000).set), (std::vector<int>{0}));

  auto q = parse_config("tm-pin/1;slot=0:1");
  ASSERT_TRUE(q.ok);
  EXPECT_EQ(tm__decide_slot(&q.config, 0).action, TM__ACTION_SET);
  EXPECT_EQ(tm__decide_slot(&q.config, 1).action, TM__ACTION_RESTORE);  // beyond the plan
}

TEST(Decide, NameRulesFirstMatchAndSkipname) {
  auto p = parse_config("tm-pin/1;skipname=worker-9;name=worker-*:1;name=*:0");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(tm__decide_name(&p.config, "worker-9").action, TM__ACTION_RESTORE);
  auto d = tm__decide_name(&p.config, "worker-1");
  EXPECT_EQ(d.action, TM__ACTION_SET);
  EXPECT_EQ(cpus_of(p.config, d.set), (std::vector<int>{1}));
  EXPECT_EQ(cpus_of(p.config, tm__decide_name(&p.config, "io").set), (std::vector<int>{0}));

  auto none = parse_config("tm-pin/1;slot=0:1");
  EXPECT_EQ(tm__decide_name(&none.config, "worker-1").action, TM__ACTION_NONE);
}

}  // namespace
