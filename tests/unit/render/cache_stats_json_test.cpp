// The thread cache's counts in `watch --json` ("thread_cache"): the sums, the reuse share, the
// retirements and one entry per process, from two lines of the cache's format written here.
#include "src/render/cache_stats_json.hpp"

#include <gtest/gtest.h>

namespace threadmap::render {
namespace {

TEST(CacheStatsJson, SumsSharesRetirementsAndProcesses) {
  auto summary = apply::summarize_cache_stats(
      "tm-cache-stats/1 pid=10 ppid=1 comm=python3 from-cache=90 from-system=10 bypassed=0 "
      "retired.fork=3 final=1\n"
      "tm-cache-stats/1 pid=11 ppid=10 comm=go from-cache=5 from-system=0 bypassed=5 "
      "retired.fork=1 retired.idle-timeout=2 final=0\n");
  nlohmann::json j = cache_stats_json(summary);
  EXPECT_EQ(j["creates"], 110);
  EXPECT_EQ(j["from_cache"], 95);
  EXPECT_EQ(j["from_system"], 10);
  EXPECT_EQ(j["bypassed"], 5);
  EXPECT_NEAR(j["reuse"].get<double>(), 95.0 / 110.0, 1e-9);
  ASSERT_EQ(j["retired"].size(), 2u);
  EXPECT_EQ(j["retired"][0]["cause"], "fork");  // most threads first
  EXPECT_EQ(j["retired"][0]["threads"], 4);
  ASSERT_EQ(j["processes"].size(), 2u);
  EXPECT_EQ(j["processes"][1]["pid"], 11);
  EXPECT_EQ(j["processes"][1]["comm"], "go");
  EXPECT_EQ(j["processes"][1]["final"], false);
  EXPECT_EQ(j["unfinished"], 1);
  EXPECT_TRUE(j["evidence"].is_string());
}

TEST(CacheStatsJson, NothingCreatedHasNoShare) {
  nlohmann::json j = cache_stats_json(apply::summarize_cache_stats(""));
  EXPECT_EQ(j["creates"], 0);
  EXPECT_TRUE(j["reuse"].is_null());
  EXPECT_TRUE(j["processes"].empty());
}

}  // namespace
}  // namespace threadmap::render
