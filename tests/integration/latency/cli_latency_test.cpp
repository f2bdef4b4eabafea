// Integration tests: `threadmap latency` as a user runs it.
#include <cairo.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../common/run_command.hpp"

namespace {

using tm_test::CommandResult;
using tm_test::run;

std::string latency(const std::string& args) {
  return std::string(THREADMAP_BIN) + " latency " + args;
}

std::string temp(const std::string& name) {
  return testing::TempDir() + "tm_lat_" + std::to_string(getpid()) + "_" + name;
}

std::string data(const std::string& file) {
  return std::string(THREADMAP_TEST_DATA) + "/latency/" + file;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

TEST(CliLatency, MeasuresThisMachineAndWritesJsonWithStats) {
  std::string json = temp("m.json");
  CommandResult r = run(latency("--budget-ms 20 --json " + json));
  if (r.status != 0 && r.err.find("at least 2 CPUs") != std::string::npos) {
    GTEST_SKIP() << "needs 2 allowed CPUs: " << r.err;
  }
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");                              // no progress bar on a pipe
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);  // no colors on a pipe
  EXPECT_NE(r.out.find("one-way core-to-core latency in ns = round trip / 2"), std::string::npos);
  EXPECT_NE(r.out.find("latency domains"), std::string::npos);
  auto j = read_json(json);
  EXPECT_EQ(j["schema"], "threadmap.latency/1");
  EXPECT_EQ(j["method"], "cas");
  EXPECT_GT(j["clock_resolution_ns"].get<double>(), 0);
  ASSERT_GE(j["pairs"].size(), 1u);
  for (const auto& p : j["pairs"]) {
    double median = p["median_ns"].get<double>();
    EXPECT_TRUE(std::isfinite(median));
    EXPECT_GT(median, 0);
    EXPECT_LE(p["ci95_ns"][0].get<double>(), median);
    EXPECT_GE(p["ci95_ns"][1].get<double>(), median);
    EXPECT_TRUE(p.contains("recheck"));
  }
  EXPECT_FALSE(j["domains"].empty());
  EXPECT_FALSE(j["line_placement"].get<std::string>().empty());
  EXPECT_TRUE(j.contains("topology_comparison"));
  std::remove(json.c_str());
}

TEST(CliLatency, TwoLinesMethodAndQuickSayWhatTheyDid) {
  std::string json = temp("q.json");
  CommandResult r = run(latency("--quick --method two-lines --budget-ms 20 --json " + json));
  if (r.status != 0 && r.err.find("at least 2 CPUs") != std::string::npos) GTEST_SKIP();
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = read_json(json);
  EXPECT_EQ(j["method"], "two-lines");
  EXPECT_TRUE(j["quick"].get<bool>());
  EXPECT_NE(j["notes"].dump().find("quick mode: measured"), std::string::npos);
  EXPECT_NE(r.out.find("quick mode: measured"), std::string::npos);
  for (const auto& p : j["pairs"]) EXPECT_TRUE(p.contains("represents"));
  std::remove(json.c_str());
}

TEST(CliLatency, OneCpuIsAClearError) {
  CommandResult r = run(latency("--cpus 0"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("threadmap: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("at least 2 CPUs"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CliLatency, BadOptionsAreRejected) {
  EXPECT_EQ(run(latency("--method fence")).status, 2);
  EXPECT_EQ(run(latency("--precision 0")).status, 2);
  // Options that cannot apply together are usage errors (2), refused before any work.
  for (const std::string extra : {" --quick", " --method cas", " --seed 3", " --no-recheck"}) {
    CommandResult r = run(latency("--load " + data("AMD_Ryzen_9_7950X.csv") + extra));
    EXPECT_EQ(r.status, 2) << extra;
    EXPECT_EQ(lines(r.err), 1) << extra;
  }
  CommandResult both =
      run(latency("--load " + data("AMD_Ryzen_9_7950X.csv") + " --json - --csv -"));
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.err.find("stdout"), std::string::npos) << both.err;
  CommandResult empty = run(latency("--cpus 0x0 --budget-ms 5"));
  EXPECT_NE(empty.status, 0);
  EXPECT_NE(empty.err.find("empty"), std::string::npos) << empty.err;
}

TEST(CliLatency, LoadsNviennotCsvAndWritesEveryFormat) {
  std::string csv = temp("r.csv"), json = temp("r.json"), png = temp("r.png"), svg = temp("r.svg");
  CommandResult r = run(latency("--load " + data("AMD_Ryzen_9_7950X.csv") + " --csv " + csv +
                                " --json " + json + " --png " + png + " --svg " + svg));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("[0-15]  [16-31]"), std::string::npos) << r.out;
  auto j = read_json(json);
  ASSERT_EQ(j["domains"].size(), 2u);
  EXPECT_EQ(j["domains"][0].size(), 16u);
  cairo_surface_t* img = cairo_image_surface_create_from_png(png.c_str());
  EXPECT_EQ(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
  EXPECT_GT(cairo_image_surface_get_width(img), 400);
  cairo_surface_destroy(img);
  std::ifstream s(svg);
  std::stringstream svg_text;
  svg_text << s.rdbuf();
  EXPECT_NE(svg_text.str().find("</svg>"), std::string::npos);

  // Our CSV and JSON load back and give the same domains.
  for (const std::string& again : {csv, json}) {
    std::string json2 = temp("again.json");
    CommandResult r2 = run(latency("--load " + again + " --json " + json2));
    ASSERT_EQ(r2.status, 0) << r2.err;
    EXPECT_EQ(read_json(json2)["domains"], j["domains"]);
    EXPECT_EQ(read_json(json2)["matrix"], j["matrix"]);
    std::remove(json2.c_str());
  }
  for (const auto& f : {csv, json, png, svg}) std::remove(f.c_str());
}

TEST(CliLatency, RaggedCsvGivesOneErrorNamingLineAndColumn) {
  std::string bad = temp("bad.csv");
  std::ofstream(bad) << ",,\n1.5,,\n2.5,x,\n";
  CommandResult r = run(latency("--load " + bad));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("line 3, column 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
  std::remove(bad.c_str());
}

TEST(CliLatency, FiveHundredTwelveCpusAnalyseAndRender) {
  std::string png = temp("512.png");
  CommandResult r = run(latency(
      "--load " + data("Dual_AMD_EPYC_9754_128-Core_Processor_by-fwyzard.csv") + " --png " + png));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("cache      32 groups, 16 CPUs each"), std::string::npos) << r.out;
  cairo_surface_t* img = cairo_image_surface_create_from_png(png.c_str());
  EXPECT_EQ(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
  EXPECT_LE(cairo_image_surface_get_width(img), 1400);
  cairo_surface_destroy(img);
  std::remove(png.c_str());
}

TEST(CliLatency, TopologyComparisonOnLoadedMatrix) {
  // The 7773X matrix against a topology of another machine: 128 CPUs are a subset of the
  // recorded 2x EPYC 7763 (256 CPUs), whose L3 domains are CCXs of 16 CPUs, but numbered
  // differently: the comparison must say whether they match, never crash.
  CommandResult r =
      run(latency("--load " + data("AMD_EPYC_7773X.csv") + " --topology " +
                  std::string(THREADMAP_TEST_DATA) + "/topologies/amd-2x-epyc7763-zen3.xml"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("compared with the topology"), std::string::npos);
  EXPECT_NE(r.out.find("hwloc's cores"), std::string::npos);
}

TEST(CliLatency, NumericOrderFlag) {
  CommandResult r = run(latency("--load " + data("Apple_M1_Pro.csv") + " --numeric-order"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("rows/columns in CPU number order"), std::string::npos);
}

}  // namespace

namespace {

TEST(CliLatency, UnwritableOutputFailsBeforeAnythingIsDone) {
  std::string json = temp("never.json");
  CommandResult r = run(latency("--budget-ms 5 --json " + json + " --png /nonexistent-dir/x.png"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--png"), std::string::npos) << r.err;  // names the flag and the path
  EXPECT_NE(r.err.find("/nonexistent-dir/x.png"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(std::ifstream(json).good());  // nothing half-written
}

}  // namespace
