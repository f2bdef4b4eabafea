// The bench table and JSON: every documented field is present, units are said, unavailable
// variants carry their reason, and the numbers are the result's own.
#include "src/render/bench_view.hpp"

#include <gtest/gtest.h>

namespace threadmap::experiments {
namespace {

BenchResult sample_result() {
  BenchResult r;
  r.name = "contention";
  r.title = "two pairs";
  r.unit = "ms";
  r.how_measured = "wall time";
  r.runs = 6;
  r.published = "5.09 ms -> 1.32 ms";
  r.allowed_cpus = "0-1";
  Variant os;
  os.name = "os";
  os.label = "OS placement";
  os.placement = "not pinned";
  os.threads = {{"pair A thread 1", {}}};
  os.value = summarize_runs({5.0, 4.0, 6.0, 5.0, 4.5, 5.5});
  Variant one;
  one.name = "one-core";
  one.label = "each pair on one CPU";
  one.placement = "A: CPU 0 + CPU 0";
  one.baseline = "os";
  one.threads = {{"pair A thread 1", CpuSet{0}}};
  one.value = summarize_runs({1.25, 1.0, 1.5, 1.25, 1.1, 1.4});
  one.counters = {{"cpu_migrations", "count per run", true, 2, "perf", ""},
                  {"l1d_read_misses", "count per run", false, 0, "", "not supported: ENOENT"}};
  Variant smt;
  smt.name = "smt";
  smt.label = "siblings";
  smt.baseline = "os";
  smt.available = false;
  smt.unavailable_reason = "no SMT here";
  r.variants = {os, one, smt};
  r.notes = {"a note"};
  compute_ratios(r);
  return r;
}

TEST(BenchJson, HasEveryDocumentedField) {
  nlohmann::json j = render::bench_json(sample_result());
  EXPECT_EQ(j["schema"], "threadmap.bench/1");
  for (const char* key : {"bench", "title", "available", "unavailable_reason", "unit",
                          "higher_is_better", "how_measured", "statistic", "runs", "quick",
                          "usable_cpus", "published", "variants", "notes"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["statistic"], "median of 6 runs");
  const auto& one = j["variants"][1];
  for (const char* key : {"name", "label", "available", "unavailable_reason", "placement",
                          "threads", "baseline", "median", "min", "max", "spread_pct", "samples",
                          "ratio_to_baseline", "counters", "verdict", "verdict_basis"})
    EXPECT_TRUE(one.contains(key)) << key;
  EXPECT_EQ(one["verdict"], "faster");
  EXPECT_NE(one["verdict_basis"].get<std::string>().find("Mann-Whitney"), std::string::npos);
  EXPECT_EQ(j["variants"][0]["verdict"], "baseline");
  EXPECT_EQ(j["variants"][2]["verdict"], "not run");
  EXPECT_TRUE(j.contains("machine_state"));
  EXPECT_TRUE(j.contains("rounds"));
  EXPECT_DOUBLE_EQ(one["median"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(one["ratio_to_baseline"].get<double>(), 4.0);
  EXPECT_EQ(one["threads"][0]["cpus"], "0");
  EXPECT_TRUE(j["variants"][0]["threads"][0]["cpus"].is_null());
  EXPECT_EQ(one["counters"][1]["supported"], false);
  EXPECT_EQ(one["counters"][1]["reason"], "not supported: ENOENT");
  EXPECT_EQ(j["variants"][2]["available"], false);
  EXPECT_EQ(j["variants"][2]["unavailable_reason"], "no SMT here");
  EXPECT_FALSE(j["variants"][2].contains("median"));
}

TEST(BenchJson, UnavailableBenchSaysWhy) {
  nlohmann::json j = render::bench_json(unavailable_bench("spawn", "t", "not built"));
  EXPECT_EQ(j["available"], false);
  EXPECT_EQ(j["unavailable_reason"], "not built");
}

TEST(BenchText, ShowsMediansUnitsRatiosAndReasons) {
  std::string text = render::bench_text(sample_result());
  EXPECT_NE(text.find("median of 6 runs"), std::string::npos) << text;
  EXPECT_NE(text.find("5.00 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("1.25 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("4.00x faster"), std::string::npos) << text;
  EXPECT_NE(text.find("baseline"), std::string::npos) << text;
  EXPECT_NE(text.find("no SMT here"), std::string::npos) << text;
  EXPECT_NE(text.find("not supported"), std::string::npos) << text;
  EXPECT_NE(text.find("published: 5.09 ms -> 1.32 ms"), std::string::npos) << text;
}

TEST(BenchText, AnUnclearVerdictShowsNoRatioAndNoColourWord) {
  BenchResult r = sample_result();
  // The loaded VM: medians 1.9x apart, samples all over each other.
  r.variants[0].value = summarize_runs({5.0, 1.2, 9.0, 4.8, 2.0});
  r.variants[1].value = summarize_runs({2.5, 6.0, 1.0, 2.6, 8.0});
  compute_ratios(r);
  ASSERT_EQ(r.variants[1].verdict, "no clear difference");
  const std::string text = render::bench_text(r);
  EXPECT_EQ(text.find("x faster"), std::string::npos) << text;
  EXPECT_EQ(text.find("x slower"), std::string::npos) << text;
  EXPECT_NE(text.find("no clear difference (spread 269%)"), std::string::npos) << text;
  // The other way round, the wide spread is the baseline's and the row says whose it is.
  r.variants[0].value = summarize_runs({2.5, 6.0, 1.0, 2.6, 8.0});
  r.variants[1].value = summarize_runs({2.4, 2.5, 2.6, 2.45, 2.55});
  compute_ratios(r);
  ASSERT_EQ(r.variants[1].verdict, "no clear difference");
  const std::string quoted = render::bench_text(r);
  EXPECT_NE(quoted.find("no clear difference (baseline's spread 269%, this row's 8%)"),
            std::string::npos)
      << quoted;
  nlohmann::json j = render::bench_json(r);
  EXPECT_EQ(j["variants"][1]["verdict"], "no clear difference");
}

TEST(BenchText, ABusyMachineIsSaidBesideTheTable) {
  BenchResult r = sample_result();
  MachineState busy;
  busy.verdict = MachineVerdict::busy;
  busy.summary = "busy: others used 63% of CPUs 0-1 just before, 3 runnable tasks on 2 CPUs";
  r.machine_state = busy;
  const std::string text = render::bench_text(r);
  EXPECT_NE(text.find("measured on a busy machine: others used 63%"), std::string::npos) << text;
  nlohmann::json j = render::bench_json(r);
  EXPECT_EQ(j["machine_state"]["verdict"], "busy");
}

// The spawn bench's rows: glibc (the baseline), the cache (compared with it) and the hand-off
// floor measured beside them in round trips/s. The floor is no baseline and its values keep
// their own unit; counters no variant could count are one line, not a column of "not supported".
TEST(BenchText, AFloorIsAReferenceInItsOwnUnitAndUnsupportedCountersFoldIntoOneLine) {
  BenchResult r;
  r.name = "spawn";
  r.unit = "threads/s";
  r.higher_is_better = true;
  r.runs = 5;
  Variant glibc, cache, floor;
  glibc.name = "no-cache-1-creator";
  glibc.label = "1 creator, no cache";
  glibc.value = summarize_runs({22e3, 23e3, 21e3, 22.5e3, 22.2e3});
  cache.name = "cache-1-creator";
  cache.label = "1 creator, thread cache";
  cache.baseline = glibc.name;
  cache.value = summarize_runs({1.1e6, 1.2e6, 1.19e6, 1.25e6, 0.9e6});
  floor.name = "floor-1-creator";
  floor.label = "1 creator, hand-off floor";
  floor.unit = "round trips/s";
  floor.value = summarize_runs({2.1e6, 2.2e6, 2.0e6, 2.15e6, 2.3e6});
  const Counter unsupported{"l1d_read_misses", "count per run", false, 0, "", "no PMU in this VM"};
  const Counter also{"dtlb_read_misses", "count per run", false, 0, "", "no PMU in this VM"};
  const Counter syscalls{
      "syscalls_per_create_join", "per create+join", true, 2.5, "tracepoint", ""};
  glibc.counters = cache.counters = {syscalls, unsupported, also};
  r.variants = {glibc, cache, floor};
  compute_ratios(r);
  const std::string text = render::bench_text(r);
  EXPECT_NE(text.find("2.15 M round trips/s"), std::string::npos) << text;
  EXPECT_EQ(text.find("M threads/s .. 2."), std::string::npos) << text;
  EXPECT_NE(text.find("reference, not compared"), std::string::npos) << text;
  // "baseline" on the glibc row only (and in the footnote's "row marked baseline").
  std::size_t rows = 0;
  for (std::size_t at = text.find("  baseline"); at != std::string::npos;
       at = text.find("  baseline", at + 1))
    ++rows;
  EXPECT_EQ(rows, 1u) << text;
  EXPECT_NE(text.find("counters not supported here: l1d_read_misses, dtlb_read_misses (no PMU in "
                      "this VM)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("not supported  "), std::string::npos) << text;
  EXPECT_NE(text.find("syscalls_per_create_join"), std::string::npos) << text;
  nlohmann::json j = render::bench_json(r);
  EXPECT_EQ(j["variants"][2]["unit"], "round trips/s");
  EXPECT_EQ(j["variants"][0]["unit"], "threads/s");
  // The JSON says what the text says: the floor is a reference, not a baseline nothing uses.
  EXPECT_EQ(j["variants"][2]["verdict"], "reference");
  EXPECT_EQ(j["variants"][0]["verdict"], "baseline");
}

TEST(BenchText, ValuesSayTheirUnit) {
  EXPECT_EQ(render::bench_value_text(15.5e6, "op/s"), "15.50 M op/s");
  EXPECT_EQ(render::bench_value_text(158940, "threads/s"), "158.9 k threads/s");
  EXPECT_EQ(render::bench_value_text(1.3249, "ms"), "1.32 ms");
}

}  // namespace
}  // namespace threadmap::experiments
