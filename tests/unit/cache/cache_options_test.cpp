// Unit tests of the thread cache's configuration parsing (options.c), linked from the
// internal static library because those functions are hidden in the shared one.
#include <gtest/gtest.h>

extern "C" {
#include "options.h"
}

namespace {

TEST(CacheOptions, ParsesIntegersInRange) {
  long long v = 0;
  EXPECT_EQ(tm__parse_int("0", 0, 10, &v), 0);
  EXPECT_EQ(v, 0);
  EXPECT_EQ(tm__parse_int("10", 0, 10, &v), 0);
  EXPECT_EQ(v, 10);
  EXPECT_EQ(tm__parse_int("-1", -1, 10, &v), 0);
  EXPECT_EQ(v, -1);
}

TEST(CacheOptions, RejectsMalformedAndOutOfRange) {
  long long v = 7;
  EXPECT_NE(tm__parse_int("", 0, 10, &v), 0);
  EXPECT_NE(tm__parse_int("-", 0, 10, &v), 0);
  EXPECT_NE(tm__parse_int("11", 0, 10, &v), 0);
  EXPECT_NE(tm__parse_int("-2", -1, 10, &v), 0);
  EXPECT_NE(tm__parse_int("3x", 0, 10, &v), 0);
  EXPECT_NE(tm__parse_int(" 3", 0, 10, &v), 0);
  EXPECT_NE(tm__parse_int("99999999999999999999999", 0, 1LL << 50, &v), 0);
  EXPECT_EQ(v, 7) << "a rejected value must not be stored";
}

TEST(CacheOptions, LoadsFromEnvironmentAndKeepsDefaultsOnBadValues) {
  char a[] = "TM_CACHE_MAX_IDLE=5";
  char b[] = "TM_CACHE_IDLE_TIMEOUT_MS=abc";
  char c[] = "TM_CACHE_SPIN_NS=0";
  char d[] = "UNRELATED=1";
  char* env[] = {a, b, c, d, nullptr};
  testing::internal::CaptureStderr();
  tm__options_load(env);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(tm__option(TM_OPT_MAX_IDLE), 5);
  EXPECT_EQ(tm__option(TM_OPT_SPIN_NS), 0);
  EXPECT_EQ(tm__option(TM_OPT_IDLE_TIMEOUT_MS), 1000) << "bad value keeps the default";
  EXPECT_EQ(tm__option(TM_OPT_ENABLE), 1);
  EXPECT_NE(err.find("threadmap: thread cache: ignoring TM_CACHE_IDLE_TIMEOUT_MS='abc'"),
            std::string::npos)
      << err;
  char* empty[] = {nullptr};
  tm__options_load(empty);
  EXPECT_EQ(tm__option(TM_OPT_MAX_IDLE), 64) << "reloading without the variable restores it";
}

TEST(CacheOptions, LineFormatterWritesNumbersAndTruncatesSafely) {
  tm__line line{};
  tm__line_long(&line, -1234567890123LL);
  EXPECT_EQ(std::string(line.text, line.length), "-1234567890123");
  tm__line long_line{};
  tm__line_start(&long_line);
  EXPECT_EQ(std::string(long_line.text, long_line.length), "threadmap: ");
  for (int i = 0; i < 100; ++i) tm__line_str(&long_line, "0123456789");
  EXPECT_EQ(long_line.length, sizeof long_line.text - 1) << "one byte stays for the newline";
  tm__line cpus{};
  const unsigned long mask[2] = {0x10fUL, 1UL};
  tm__line_cpus(&cpus, mask, 2);
  EXPECT_EQ(std::string(cpus.text, cpus.length), "0-3,8,64");
}

}  // namespace

extern "C" {
#include "headroom.h"
}

namespace {

// The unjoined bound from the measured headroom (headroom.c): 1/8 of the smallest room, in
// [8, 1024]; -1 is "no such limit".
TEST(CacheHeadroom, BoundIsAnEighthOfTheSmallestRoomWithinFloorAndCap) {
  EXPECT_EQ(tm__bound_from_headroom(32000, -1, -1), 1024);    // pid_max alone: capped
  EXPECT_EQ(tm__bound_from_headroom(32000, 4000, -1), 500);   // RLIMIT_NPROC is smaller
  EXPECT_EQ(tm__bound_from_headroom(32000, 4000, 800), 100);  // the cgroup's pids.max room
  EXPECT_EQ(tm__bound_from_headroom(32000, 20, -1), 8);       // a small limit: the floor
  EXPECT_EQ(tm__bound_from_headroom(0, -1, -1), 8);           // no room at all: still 8
  EXPECT_EQ(tm__bound_from_headroom(-1, -1, -1), 1024);       // nothing readable: the cap
}

}  // namespace
