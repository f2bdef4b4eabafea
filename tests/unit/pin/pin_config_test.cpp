// TM_PIN_CONFIG parsing: every entry kind, and strict rejection of anything malformed (the
// preload must run a program unpinned rather than half-apply a garbled configuration).
#include <gtest/gtest.h>

#include "tests/unit/pin/pin_test_util.hpp"

namespace {

TEST(PinConfig, HeaderOnlyIsValidAndEmpty) {
  auto p = parse_config("tm-pin/1");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.config.main_set, -1);
  EXPECT_EQ(p.config.slot_count, 0u);
  EXPECT_EQ(p.config.cycle_count, 0u);
  EXPECT_EQ(p.config.inherit, 0);
  EXPECT_EQ(p.config.override_affinity, 0);
}

TEST(PinConfig, ParsesEveryEntryKind) {
  auto p = parse_config(
      "tm-pin/1;main=0;slot=0:1;slot=2:0-1,3;cycle=2/3;name=worker*:1;lib=libgomp*:0;skip=4;"
      "skipname=helper;skiplib=libfoo.so*;inherit");
  ASSERT_TRUE(p.ok) << p.error;
  const auto& c = p.config;
  EXPECT_EQ(cpus_of(c, c.main_set), (std::vector<int>{0}));
  ASSERT_EQ(c.slot_count, 3u);
  EXPECT_EQ(cpus_of(c, c.slot_sets[0]), (std::vector<int>{1}));
  EXPECT_EQ(c.slot_sets[1], -1);
  EXPECT_EQ(cpus_of(c, c.slot_sets[2]), (std::vector<int>{0, 1, 3}));
  ASSERT_EQ(c.cycle_count, 2u);
  EXPECT_EQ(cpus_of(c, c.cycle_sets[1]), (std::vector<int>{3}));
  ASSERT_EQ(c.pattern_count, 4u);
  EXPECT_STREQ(c.patterns[0].pattern, "worker*");
  EXPECT_EQ(c.patterns[0].kind, TM__PATTERN_NAME);
  EXPECT_STREQ(c.patterns[1].pattern, "libgomp*");
  EXPECT_STREQ(c.patterns[2].pattern, "helper");
  EXPECT_EQ(c.patterns[2].set, -1);
  EXPECT_STREQ(c.patterns[3].pattern, "libfoo.so*");
  ASSERT_EQ(c.skip_count, 5u);
  EXPECT_EQ(c.skip_index[4], 1);
  EXPECT_EQ(c.skip_index[3], 0);
  EXPECT_EQ(c.inherit, 1);
  EXPECT_EQ(c.has_name_rules, 1);
  EXPECT_EQ(c.has_lib_rules, 1);
}

TEST(PinConfig, RulesPassedOnCarryTheSenderAndTheFirstAffinity) {
  // What the library writes for a program it passes the rules on to (an exec after `env`).
  auto p = parse_config("tm-pin/1;from=4242;original=0-3,8;main=0;cycle=1/2");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.config.from_pid, 4242);
  EXPECT_EQ(cpus_of(p.config, p.config.original_set), (std::vector<int>{0, 1, 2, 3, 8}));
  EXPECT_EQ(cpus_of(p.config, p.config.main_set), (std::vector<int>{0}));
  auto plain = parse_config("tm-pin/1;main=0");
  ASSERT_TRUE(plain.ok);
  EXPECT_EQ(plain.config.from_pid, -1);
  EXPECT_EQ(plain.config.original_set, -1);
}

TEST(PinConfig, NamePatternMayContainColons) {
  auto p = parse_config("tm-pin/1;name=a:b:2");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_STREQ(p.config.patterns[0].pattern, "a:b");
  EXPECT_EQ(cpus_of(p.config, p.config.patterns[0].set), (std::vector<int>{2}));
}

TEST(PinConfig, LargeCpuNumbersGetWideMasks) {
  auto p = parse_config("tm-pin/1;slot=0:4095");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_GE(p.config.mask_words * sizeof(unsigned long) * 8, 4096u);
  EXPECT_EQ(cpus_of(p.config, p.config.slot_sets[0]), (std::vector<int>{4095}));
}

class PinConfigRejects : public ::testing::TestWithParam<const char*> {};

TEST_P(PinConfigRejects, WithOneLineNamingTheProblem) {
  auto p = parse_config(GetParam());
  EXPECT_FALSE(p.ok);
  EXPECT_FALSE(p.error.empty());
  EXPECT_EQ(p.error.find('\n'), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, PinConfigRejects,
    ::testing::Values("", "tm-pin/2;main=0", "tm-pin/1x", "main=0", "tm-pin/1;", "tm-pin/1;;main=0",
                      "tm-pin/1;main=", "tm-pin/1;main=a", "tm-pin/1;main=3-1", "tm-pin/1;main=0,",
                      "tm-pin/1;main=-1", "tm-pin/1;main=70000", "tm-pin/1;slot=0",
                      "tm-pin/1;slot=x:1", "tm-pin/1;slot=0:1;slot=0:2", "tm-pin/1;main=0;main=1",
                      "tm-pin/1;skip=", "tm-pin/1;skip=1a", "tm-pin/1;name=:1", "tm-pin/1;name=abc",
                      "tm-pin/1;skipname=", "tm-pin/1;cycle=0//1", "tm-pin/1;cycle=0;cycle=1",
                      "tm-pin/1;bogus=1", "tm-pin/1;inherit=1", "tm-pin/1;overrideaffinity=1",
                      "tm-pin/1;slot=1000001:0", "tm-pin/1;from=0", "tm-pin/1;from=x",
                      "tm-pin/1;from=1;from=2",
                      "tm-pin/1;original=", "tm-pin/1;original=0;original=1"));

TEST(PinConfig, ErrorNamesTheEntry) {
  auto p = parse_config("tm-pin/1;main=0;slot=zz:1");
  ASSERT_FALSE(p.ok);
  EXPECT_NE(p.error.find("slot=zz:1"), std::string::npos) << p.error;
}

TEST(PinConfig, TooSmallArenaIsRefused) {
  char error[128];
  size_t needed = 0;
  ASSERT_EQ(
      tm__pin_config_parse("tm-pin/1;main=0", nullptr, 0, &needed, nullptr, error, sizeof error),
      0);
  std::vector<unsigned char> arena(needed - 8);
  tm__pin_config config{};
  EXPECT_NE(tm__pin_config_parse("tm-pin/1;main=0", arena.data(), arena.size(), nullptr, &config,
                                 error, sizeof error),
            0);
}

}  // namespace
