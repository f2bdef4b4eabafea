// threadmap watch: migrations counted for a thread hopping across CPUs and none for a pinned
// one; JSON and timeline outputs; exit status of a watched command; run --watch with a plan.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/integration/run/run_helpers.hpp"

namespace {

using tm_test::run;

const std::string kTm = THREADMAP_BIN;

nlohmann::json thread_named(const nlohmann::json& doc, const std::string& name) {
  for (const auto& t : doc["threads"])
    if (t["name"] == name) return t;
  return nullptr;
}

class Watch : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!tm_test::have_cpus_0_and_1()) GTEST_SKIP() << "needs CPUs 0 and 1";
  }
};

TEST_F(Watch, CountsMigrationsOfAHopperAndNoneForAPinnedThread) {
  std::string json = tm_test::write_temp("watch.json", "");
  std::string png = tm_test::write_temp("timeline.png", "");
  std::string svg = tm_test::write_temp("timeline.svg", "");
  auto o = run(kTm + " watch --interval 50 --json " + json + " --timeline " + png + " -- " +
               HOP_PROBE + " 1200 5");
  EXPECT_EQ(o.status, 5) << o.err;  // the watched program's exit status
  // Watching -- CMD the summary is on stderr; stdout is the program's.
  EXPECT_NE(o.err.find("watch summary"), std::string::npos) << o.err;
  EXPECT_EQ(o.out.find("watch summary"), std::string::npos) << o.out;
  auto doc = nlohmann::json::parse(tm_test::read_all(json));
  EXPECT_EQ(doc["schema"], "threadmap.watch/1");
  auto hopper = thread_named(doc, "hopper");
  auto steady = thread_named(doc, "steady");
  ASSERT_FALSE(hopper.is_null()) << doc.dump();
  ASSERT_FALSE(steady.is_null()) << doc.dump();
  EXPECT_GT(hopper["migrations"].get<int>(), 20);
  EXPECT_GT(hopper["migrations_per_s"].get<double>(), 20.0);
  EXPECT_EQ(hopper["cpus_visited"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(steady["migrations"].get<int>(), 0);
  EXPECT_EQ(steady["cpus_visited"], nlohmann::json::array({1}));
  EXPECT_GT(steady["context_switches"].get<int>(), 0);
  std::string image = tm_test::read_all(png);
  ASSERT_GT(image.size(), 8u);
  EXPECT_EQ(image.substr(1, 3), "PNG");

  auto s = run(kTm + " watch --interval 50 --timeline " + svg + " -- " + HOP_PROBE + " 300");
  EXPECT_EQ(s.status, 0) << s.err;
  std::string text = tm_test::read_all(svg);
  EXPECT_NE(text.find("<svg"), std::string::npos);
}

TEST_F(Watch, RunWatchReportsShareOnThePlannedCpu) {
  std::string plan = tm_test::write_temp("watchplan.json", R"({"schema":"threadmap.plan/1",
    "assignments":[{"thread":"main","cpus":[0]},{"thread":"t0","cpus":[1]}]})");
  auto o =
      run(kTm + " run --plan " + plan + " --watch --interval 20 -- " + PIN_PROBE + " sleep 300");
  EXPECT_EQ(o.status, 0) << o.err;
  // The summary goes to stderr so the program's stdout stays its own.
  EXPECT_NE(o.err.find("on planned"), std::string::npos) << o.err;
  // Both threads run only on their planned CPU, at every sample.
  size_t first = o.err.find("100.0%");
  ASSERT_NE(first, std::string::npos) << o.err;
  EXPECT_NE(o.err.find("100.0%", first + 1), std::string::npos) << o.err;
  EXPECT_EQ(o.out.find("watch summary"), std::string::npos);
}

TEST_F(Watch, WatchesARunningProcessByPid) {
  auto o = run("sh -c '" + std::string(HOP_PROBE) + " 1500 & sleep 0.2; " + kTm +
               " watch $! --interval 50 --duration 0.5 --no-live; wait'");
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("hopper"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("not supported"), std::string::npos);  // no PMU here
}

std::uint64_t total_bytes(const nlohmann::json& reading) {
  std::uint64_t sum = 0;
  for (const auto& n : reading["nodes"]) sum += n["bytes"].get<std::uint64_t>();
  return sum;
}

TEST_F(Watch, PagesPerNumaNodeAtTheStartAndTheEnd) {
  // The shell grows by ~20 MB (a 20 MB string) between the first and the last reading.
  std::string json = tm_test::write_temp("watch_numa.json", "");
  auto o = run(kTm + " watch --interval 50 --json " + json +
               " -- sh -c 'sleep 0.3; x=$(head -c 20000000 /dev/zero | tr \"\\\\0\" a); "
               "sleep 0.8'");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.err.find("pages per NUMA node (/proc/"), std::string::npos) << o.err;
  auto doc = nlohmann::json::parse(tm_test::read_all(json));
  const auto& numa = doc["numa_pages"];
  ASSERT_TRUE(numa.is_object()) << numa.dump();
  ASSERT_FALSE(numa["start"]["nodes"].empty()) << numa.dump();
  for (const auto& n : numa["start"]["nodes"]) {
    EXPECT_GE(n["node"].get<int>(), 0);
    EXPECT_GT(n["pages"].get<std::uint64_t>(), 0u);
  }
  EXPECT_LT(numa["start"]["at_s"].get<double>(), 0.3);
  EXPECT_GT(numa["end"]["at_s"].get<double>(), 0.3);
  EXPECT_GT(total_bytes(numa["end"]), total_bytes(numa["start"]) + (10u << 20)) << numa.dump();
}

TEST_F(Watch, RunWatchShowsPagesPerNumaNode) {
  auto o = run(kTm + " run --mem bind:0 --watch --interval 50 -- sleep 0.3");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.err.find("pages per NUMA node (/proc/"), std::string::npos) << o.err;
  EXPECT_EQ(o.out, "");  // the summary goes to stderr, the program's stdout stays clean
}

TEST_F(Watch, BadInputGetsOneLine) {
  auto missing = run(kTm + " watch 999999999 --duration 0.1");
  EXPECT_NE(missing.status, 0);
  EXPECT_EQ(tm_test::count_lines(missing.err), 1) << missing.err;
  auto format = run(kTm + " watch --timeline x.gif -- true");
  EXPECT_NE(format.status, 0);
  EXPECT_NE(format.err.find("x.gif"), std::string::npos);
}

}  // namespace
