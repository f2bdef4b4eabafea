// `threadmap bench NAME --quick --runs 2 --json FILE` for every experiment: the JSON carries
// the documented fields (schema threadmap.bench/1), the table says medians and units, and bad
// input fails with one "threadmap: ..." line.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace {

struct Ran {
  int status = -1;
  std::string out;  // stdout and stderr together
};

Ran run(const std::string& args) {
  Ran r;
  std::string cmd = std::string(THREADMAP_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string temp_json(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("threadmap-bench-" + name + "-" + std::to_string(getpid()) + ".json"))
      .string();
}

nlohmann::json run_bench_json(const std::string& name, const std::string& extra = "") {
  const std::string file = temp_json(name);
  Ran r = run("bench " + name + " --quick --runs 2 --json " + file + " " + extra);
  EXPECT_EQ(r.status, 0) << r.out;
  std::ifstream in(file);
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  std::filesystem::remove(file);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j;
}

// The fields docs/bench-and-report.md promises for every available bench.
void expect_documented_fields(const nlohmann::json& j, const std::string& name) {
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["schema"], "threadmap.bench/1");
  EXPECT_EQ(j["bench"], name);
  for (const char* key : {"title", "available", "unavailable_reason"})
    EXPECT_TRUE(j.contains(key)) << key;
  if (!j["available"].get<bool>()) {
    EXPECT_TRUE(j["unavailable_reason"].is_string());
    return;
  }
  for (const char* key :
       {"unit", "higher_is_better", "how_measured", "statistic", "runs", "quick", "usable_cpus",
        "published", "variants", "notes", "machine_state", "rounds"})
    EXPECT_TRUE(j.contains(key)) << key;
  // The machine's state goes with the measurement.
  ASSERT_TRUE(j["machine_state"].is_object());
  EXPECT_TRUE(j["machine_state"]["verdict"] == "quiet" || j["machine_state"]["verdict"] == "busy" ||
              j["machine_state"]["verdict"] == "unknown")
      << j["machine_state"];
  EXPECT_TRUE(j["machine_state"]["summary"].is_string());
  // 2 planned runs, and rounds added within the stated budget while a verdict is unclear.
  const int runs = j["runs"].get<int>();
  EXPECT_EQ(j["rounds"]["planned"], 2);
  EXPECT_EQ(runs, 2 + j["rounds"]["added"].get<int>());
  EXPECT_LE(runs, j["rounds"]["cap"].get<int>());
  EXPECT_TRUE(j["rounds"]["budget"].is_string());
  EXPECT_EQ(j["quick"], true);
  EXPECT_EQ(j["statistic"], "median of " + std::to_string(runs) + " runs");
  ASSERT_TRUE(j["variants"].is_array());
  ASSERT_FALSE(j["variants"].empty());
  EXPECT_TRUE(j["variants"][0]["baseline"].is_null());
  for (const auto& v : j["variants"]) {
    for (const char* key : {"name", "label", "available", "unavailable_reason", "placement",
                            "threads", "baseline", "counters"})
      EXPECT_TRUE(v.contains(key)) << key;
    // Every comparison has a verdict from the stated test.
    ASSERT_TRUE(v.contains("verdict")) << v;
    ASSERT_TRUE(v["verdict_basis"].is_string()) << v;
    const std::string verdict = v["verdict"];
    if (!v["available"].get<bool>()) {
      EXPECT_TRUE(v["unavailable_reason"].is_string());
      EXPECT_EQ(verdict, "not run");
      continue;
    }
    if (v["baseline"].is_null())
      EXPECT_EQ(verdict, "baseline");
    else
      EXPECT_TRUE(verdict == "faster" || verdict == "slower" || verdict == "no clear difference" ||
                  verdict == "too few runs to judge" || verdict == "not run")
          << verdict;
    for (const char* key : {"median", "min", "max", "spread_pct", "samples", "ratio_to_baseline"})
      EXPECT_TRUE(v.contains(key)) << key;
    EXPECT_EQ(v["samples"].size(), static_cast<std::size_t>(runs));
    EXPECT_GT(v["median"].get<double>(), 0);
    EXPECT_GT(v["ratio_to_baseline"].get<double>(), 0);
    for (const auto& t : v["threads"]) {
      EXPECT_TRUE(t["thread"].is_string());
      EXPECT_TRUE(t["cpus"].is_null() || t["cpus"].is_string());
    }
  }
}

TEST(BenchCli, Contention) {
  auto j = run_bench_json("contention");
  expect_documented_fields(j, "contention");
  EXPECT_EQ(j["unit"], "ms");
  EXPECT_EQ(j["variants"][0]["name"], "os");
  EXPECT_EQ(j["variants"][1]["name"], "one-core");
}

TEST(BenchCli, Pingpong) {
  auto j = run_bench_json("pingpong");
  expect_documented_fields(j, "pingpong");
  EXPECT_EQ(j["unit"], "op/s");
  EXPECT_EQ(j["higher_is_better"], true);
}

TEST(BenchCli, PingpongWithARequestedPair) {
  auto j = run_bench_json("pingpong", "--pair 0,1");
  if (j.value("available", false)) {
    ASSERT_EQ(j["variants"].size(), 1u);
    EXPECT_EQ(j["variants"][0]["threads"][0]["cpus"], "0");
    EXPECT_EQ(j["variants"][0]["threads"][1]["cpus"], "1");
  }
}

TEST(BenchCli, PingpongWithALatencyFileOfAnotherMachineSaysSo) {
  auto j =
      run_bench_json("pingpong", "--latency " THREADMAP_TEST_DATA "/latency/AMD_Ryzen_9_7950X.csv");
  ASSERT_TRUE(j.contains("notes"));
  bool flagged = false;
  for (const auto& n : j["notes"])
    flagged = flagged || n.get<std::string>().find("another machine") != std::string::npos;
  // Flagged unless this machine really has the 32 CPUs of that file.
  if (sysconf(_SC_NPROCESSORS_CONF) < 32) {
    EXPECT_TRUE(flagged) << j.dump(1);
  }
}

TEST(BenchCli, Smt) {
  auto j = run_bench_json("smt");
  expect_documented_fields(j, "smt");
  EXPECT_EQ(j["variants"].size(), 6u);
}

TEST(BenchCli, MigrateHasCounters) {
  auto j = run_bench_json("migrate");
  expect_documented_fields(j, "migrate");
  for (const auto& v : j["variants"]) {
    if (!v["available"].get<bool>()) continue;
    ASSERT_EQ(v["counters"].size(), 4u);
    for (const auto& c : v["counters"]) {
      for (const char* key : {"name", "unit", "supported", "median", "how", "reason"})
        EXPECT_TRUE(c.contains(key)) << key;
      if (c["supported"].get<bool>()) {
        EXPECT_TRUE(c["median"].is_number());
      } else {
        EXPECT_TRUE(c["reason"].is_string());
      }
    }
  }
}

TEST(BenchCli, SpawnRunsWhenItsProgramsAreBuilt) {
  if (std::string(THREADMAP_SANITIZE).size() > 0)
    GTEST_SKIP() << "sanitizer build: preloading the thread cache into a sanitized program "
                    "needs the sanitizer runtime first in LD_PRELOAD";
  auto j = run_bench_json("spawn");
  expect_documented_fields(j, "spawn");
  const auto bin = std::filesystem::path(THREADMAP_BIN).parent_path();
  const bool built = std::filesystem::exists(bin / "threadmap-spawn") &&
                     std::filesystem::exists(bin.parent_path() / "lib" / "libthreadmap-cache.so");
  EXPECT_EQ(j["available"].get<bool>(), built) << j.dump(1);
  if (built) {
    EXPECT_EQ(j["unit"], "threads/s");
    EXPECT_GE(j["variants"].size(), 2u);
    EXPECT_EQ(j["variants"][1]["baseline"], j["variants"][0]["name"]);
    // glibc, the cache and the hand-off floor side by side, for each creator count.
    ASSERT_EQ(j["variants"].size() % 3, 0u) << j.dump(1);
    EXPECT_EQ(j["variants"][2]["name"], "floor-1-creator");
    const auto& glibc = j["variants"][0]["counters"][0];
    const auto& cache = j["variants"][1]["counters"][0];
    EXPECT_EQ(glibc["name"], "syscalls_per_create_join");
    if (glibc["supported"].get<bool>() && cache["supported"].get<bool>()) {
      // A new kernel thread takes at least clone and exit; a recycled one takes neither.
      EXPECT_GE(glibc["median"].get<double>(), 2.0);
      EXPECT_LT(cache["median"].get<double>(), glibc["median"].get<double>());
    } else {
      EXPECT_FALSE(glibc["reason"].get<std::string>().empty());
    }
    bool floor_note = false;
    for (const auto& note : j["notes"]) {
      // A percentage when the two are clearly apart, else both ranges; a collapsed floor
      // (below glibc's rate: a busy machine) is named, never a ratio.
      const std::string text = note.get<std::string>();
      floor_note |= text.find("of the hand-off floor") != std::string::npos ||
                    text.find("between the cache and the hand-off floor") != std::string::npos ||
                    text.find("the hand-off floor collapsed") != std::string::npos;
    }
    EXPECT_TRUE(floor_note) << j["notes"].dump();
  }
}

TEST(BenchCli, TableShowsMediansAndThePublishedResult) {
  Ran r = run("bench contention --quick --runs 2");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("each value is the median of "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("runs: 2 planned runs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("published: 5.09 ms -> 1.32 ms"), std::string::npos) << r.out;
}

TEST(BenchCli, BadInputIsOneErrorLine) {
  for (const char* args : {"bench nosuch", "bench contention --runs 0", "bench pingpong --pair 0",
                           "bench pingpong --pair 0,9999 --quick", "bench smt --pair 0,1",
                           "bench pingpong --latency /nonexistent.csv"}) {
    Ran r = run(args);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_EQ(r.out.rfind("threadmap: ", 0), 0u) << args << ": " << r.out;
  }
}

}  // namespace
