// The C API: 0 / -1 + errno + tm_last_error(), through libthreadmap.so.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

#include "threadmap/threadmap.h"

TEST(CApi, CpusetParseFormatAndErrors) {
  tm_cpuset* set = tm_cpuset_new();
  ASSERT_NE(set, nullptr);
  ASSERT_EQ(tm_cpuset_parse(set, "all"), 0);
  ASSERT_GE(tm_cpuset_count(set), 1);
  ASSERT_EQ(tm_cpuset_parse(set, "0"), 0);  // CPU 0 exists on every machine, allowed or not
  EXPECT_EQ(tm_cpuset_count(set), 1);
  EXPECT_EQ(tm_cpuset_contains(set, 0), 1);
  char buf[64];
  EXPECT_EQ(tm_cpuset_format(set, buf, sizeof buf), 1);
  EXPECT_STREQ(buf, "0");
  errno = 0;
  EXPECT_EQ(tm_cpuset_parse(set, "0-x"), -1);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_NE(std::strstr(tm_last_error(), "0-x"), nullptr);
  EXPECT_EQ(tm_cpuset_count(set), 1);  // unchanged on failure
  tm_cpuset_add(set, 100);
  char tiny[2];
  EXPECT_EQ(tm_cpuset_format(set, tiny, sizeof tiny), -1);
  EXPECT_EQ(errno, ERANGE);
  EXPECT_EQ(tm_cpuset_add(set, -1), -1);
  tm_cpuset_free(set);
  tm_cpuset_free(nullptr);
}

TEST(CApi, PinSelfAndReadBack) {
  tm_cpuset* allowed = tm_cpuset_new();
  ASSERT_EQ(tm_allowed_cpus(allowed), 0);
  ASSERT_GT(tm_cpuset_count(allowed), 0);
  char first[16];
  {
    tm_cpuset* one = tm_cpuset_new();
    int cpu = 0;
    while (!tm_cpuset_contains(allowed, cpu)) ++cpu;
    tm_cpuset_add(one, cpu);
    ASSERT_GT(tm_cpuset_format(one, first, sizeof first), 0);
    tm_cpuset_free(one);
  }
  ASSERT_EQ(tm_pin_self_expr(first), 0) << tm_last_error();
  tm_cpuset* mine = tm_cpuset_new();
  ASSERT_EQ(tm_get_affinity_tid(0, mine), 0);
  EXPECT_EQ(tm_cpuset_count(mine), 1);
  EXPECT_EQ(tm_cpuset_contains(mine, tm_current_cpu()), 1);
  ASSERT_EQ(tm_get_affinity_tid(tm_current_tid(), mine), 0);
  EXPECT_EQ(tm_cpuset_count(mine), 1);
  tm_cpuset* outside = tm_cpuset_new();
  tm_cpuset_add(outside, 4096);
  errno = 0;
  EXPECT_EQ(tm_pin_self(outside), -1);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_NE(std::strstr(tm_last_error(), "allowed set"), nullptr);
  EXPECT_EQ(tm_pin_thread(pthread_self(), allowed), 0);
  EXPECT_EQ(tm_unpin_self(), 0);
  ASSERT_EQ(tm_get_affinity_tid(0, mine), 0);
  EXPECT_EQ(tm_cpuset_count(mine), tm_cpuset_count(allowed));
  EXPECT_EQ(tm_pin_tid(999999999, allowed), -1);
  EXPECT_EQ(errno, ESRCH);
  tm_cpuset_free(outside);
  tm_cpuset_free(mine);
  tm_cpuset_free(allowed);
}

// The version has one source, project(VERSION) in CMakeLists.txt: the library linked at run time
// and the C header's macros must both say what CMake says.
TEST(CApi, VersionIsCMakesProjectVersion) {
  EXPECT_STREQ(tm_version(), TM_TEST_PROJECT_VERSION);
  EXPECT_STREQ(TM_VERSION_STRING, TM_TEST_PROJECT_VERSION);
  EXPECT_EQ(TM_VERSION_MAJOR, TM_TEST_PROJECT_VERSION_MAJOR);
  EXPECT_EQ(TM_VERSION_MINOR, TM_TEST_PROJECT_VERSION_MINOR);
  EXPECT_EQ(TM_VERSION_PATCH, TM_TEST_PROJECT_VERSION_PATCH);
}
