// Integration tests: run `threadmap plan` as a user would and check what it prints and returns.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../common/run_command.hpp"

namespace {

using tm_test::CommandResult;
using tm_test::run;

std::string plan(const std::string& args) { return std::string(THREADMAP_BIN) + " plan " + args; }
std::string data(const std::string& file) { return std::string(THREADMAP_TEST_DATA) + "/" + file; }
std::string example(const std::string& file) {
  return std::string(THREADMAP_EXAMPLES) + "/" + file;
}

void expect_one_error_line(const CommandResult& r, const std::string& fragment) {
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err.rfind("threadmap: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
}

TEST(CliPlan, JsonIsThePlanThatRunReads) {
  CommandResult r = run(plan("--spec " + example("pipeline.json") + " --topology " +
                             data("topologies/amd-2x-epyc9654-zen4.xml") + " --json"));
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "threadmap.plan/1");
  ASSERT_EQ(j["assignments"].size(), 9u);
  // Thread-creation order: spec order with the shorthand expanded.
  const char* order[] = {"producer", "consumer", "worker0", "worker1", "worker2",
                         "worker3",  "worker4",  "worker5", "logger"};
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(j["assignments"][i]["thread"], order[i]);
    ASSERT_EQ(j["assignments"][i]["cpus"].size(), 1u);
    EXPECT_NE(j["assignments"][i]["cpus"][0].get<int>(), 0) << "CPU 0 is reserved";
  }
  EXPECT_TRUE(j["cost"].is_number());
  EXPECT_NE(j["model"].get<std::string>().find("topology distance"), std::string::npos);
  for (const char* b : {"sequential", "compact", "scatter", "spread"}) {
    ASSERT_TRUE(j["baselines"].contains(b)) << b;
    EXPECT_GE(j["baselines"][b].get<double>() + 1e-9, 0.0);
  }
  EXPECT_TRUE(j["proven_optimal"].get<bool>());
}

TEST(CliPlan, PingPongOnAMatrixAloneGetsTheFastestPair) {
  CommandResult r = run(
      plan("--pairs 1 --latency " + data("latency/AMD_Ryzen_9_5950X_3.40_GHz.csv") + " --json"));
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["assignments"][0]["cpus"][0], 5);
  EXPECT_EQ(j["assignments"][1]["cpus"][0], 21);
  EXPECT_NE(j["model"].get<std::string>().find("measured latency"), std::string::npos);
  EXPECT_LT(j["cost"].get<double>(), j["baselines"]["sequential"].get<double>());
}

TEST(CliPlan, TextShowsWhyAndTheCostTable) {
  CommandResult r = run(plan("--spec " + example("contending-pairs.json") + " --topology " +
                             data("topologies/intel-2x-xeonmax9460-sapphirerapids.xml")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("model:  topology distance"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("share-core-with pairA.1: SMT siblings"), std::string::npos) << r.out;
  for (const char* row : {"plan ", "sequential", "compact", "scatter", "spread"})
    EXPECT_NE(r.out.find(row), std::string::npos) << row;
}

TEST(CliPlan, EveryExampleSpecPlansOnEverySharedTopology) {
  for (const auto& spec : std::filesystem::directory_iterator(THREADMAP_EXAMPLES)) {
    for (const auto& topo : std::filesystem::directory_iterator(data("topologies"))) {
      if (topo.path().extension() != ".xml") continue;
      CommandResult r = run(plan("--spec " + spec.path().string() + " --topology " +
                                 topo.path().string() + " --json --time-limit 0.3"));
      // The 2-CPU VM cannot hold the larger examples: that must be the clear error, nothing else.
      if (r.status != 0) {
        expect_one_error_line(r, "CPUs but only");
        continue;
      }
      auto j = nlohmann::json::parse(r.out);
      EXPECT_EQ(j["schema"], "threadmap.plan/1") << spec.path() << " on " << topo.path();
    }
  }
}

TEST(CliPlan, ExportsAndOutputFile) {
  const std::string base = plan("--threads 4 --policy scatter --topology " +
                                data("topologies/amd-2x-epyc7763-zen3.xml"));
  CommandResult omp = run(base + " --export omp");
  ASSERT_EQ(omp.status, 0) << omp.err;
  EXPECT_NE(omp.out.find("OMP_PLACES=\"{"), std::string::npos) << omp.out;
  CommandResult slurm = run(base + " --export slurm");
  EXPECT_NE(slurm.out.find("--cpu-bind=map_cpu:"), std::string::npos) << slurm.out;
  const std::string file = testing::TempDir() + "tm_plan_" + std::to_string(getpid()) + ".json";
  CommandResult written = run(base + " -o " + file);
  ASSERT_EQ(written.status, 0) << written.err;
  std::ifstream in(file);
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["assignments"].size(), 4u);
  std::remove(file.c_str());
  CommandResult spread = run(plan("--threads 4 --policy spread --json --topology " +
                                  data("topologies/amd-2x-epyc7763-zen3.xml")));
  ASSERT_EQ(spread.status, 0) << spread.err;
  EXPECT_NE(nlohmann::json::parse(spread.out)["solver"].get<std::string>().find("hwloc-distrib"),
            std::string::npos);
}

TEST(CliPlan, ThisMachineWorks) {
  CommandResult r = run(plan("--pairs 1 --json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["assignments"].size(), 2u);
}

TEST(CliPlan, BadInputIsOneClearLine) {
  const std::string vm = " --topology " + data("topologies/this-vm-kvm-2vcpu-epyc.xml");
  const std::string tmp = testing::TempDir() + "tm_plan_bad_" + std::to_string(getpid()) + ".json";
  auto with_spec = [&](const std::string& json) {
    std::ofstream(tmp) << json;
    return run(plan("--spec " + tmp + vm));
  };
  expect_one_error_line(run(plan("--spec /nonexistent.json" + vm)), "/nonexistent.json");
  expect_one_error_line(
      with_spec(R"({"threads": [{"name": "a"}], "edges": [{"between": ["a", "ghost"]}]})"),
      "unknown thread 'ghost'");
  expect_one_error_line(with_spec(R"({"threads": [{"name": "t[0-4]"}]})"),
                        "5 threads need 5 CPUs but only 2");
  expect_one_error_line(
      with_spec(R"({"threads": [{"name": "t", "cpus": "1"}], "constraints": {"reserved": "1"}})"),
      "CPU 1 is reserved");
  expect_one_error_line(with_spec(R"({"threads": [{"name": "a", "share-core-with": "b"},
                                                  {"name": "b", "share-core-with": "a"}]})"),
                        "cycle");
  expect_one_error_line(with_spec("{not json"), "not valid JSON");
  expect_one_error_line(run(plan("--pairs 1 --export hwloc-bind" + vm)),
                        "bad --export: unknown export format 'hwloc-bind'");
  expect_one_error_line(run(plan("--threads 2 --policy dense" + vm)),
                        "bad --policy: unknown policy 'dense'");
  expect_one_error_line(run(plan(vm)), "exactly one of");
  expect_one_error_line(run(plan("--pairs 1 --latency /nonexistent.csv")), "/nonexistent.csv");
  // A matrix of another machine than the topology: named, with the CPU it lacks.
  expect_one_error_line(
      run(plan("--pairs 1 --topology " + data("topologies/amd-2x-epyc9654-zen4.xml") +
               " --latency " + data("latency/AMD_Ryzen_9_5950X_3.40_GHz.csv"))),
      "has no row for CPU 32");
  std::remove(tmp.c_str());
}

// A time limit that is over before the search starts, with no steps owed (--min-steps 0), as on
// a machine too loaded to give the search a CPU: the plan is its start as it was, and both the
// text and the JSON say so and which start it was.
TEST(CliPlan, AnOutOfTimeSearchSaysItReturnedItsStartUnimproved) {
  const std::string args = "--pairs 100 --topology " + data("topologies/amd-2x-epyc9654-zen4.xml") +
                           " --time-limit 0.001 --min-steps 0";
  CommandResult text = run(plan(args));
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("unimproved: the time limit stopped the search after 0 moves"),
            std::string::npos)
      << text.out;
  CommandResult json = run(plan(args + " --json"));
  ASSERT_EQ(json.status, 0) << json.err;
  auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["improved_on_start"], false);
  EXPECT_EQ(j["search_steps"], 0);
  EXPECT_EQ(j["min_steps"], 0);
  EXPECT_TRUE(j["search_start"].is_string());
  EXPECT_EQ(j["stopped_by_time"], true);
  expect_one_error_line(run(plan("--pairs 1 --min-steps -5")), "bad --min-steps");
}

TEST(CliPlan, ExportsCarryOsMemoryNodes) {
  // Dell R740 SNC2: CPUs 2 and 6 are on OS node 2, which is hwloc's logical NUMA #1.
  std::string r740 = " --topology " + data("topologies/dell-r740-2x-xeon-gold6230-snc2-2lm.xml");
  std::string tmp = "/tmp/tm_cli_plan_mem_" + std::to_string(getpid()) + ".json";
  std::ofstream(tmp) << R"({"threads": [{"name": "a", "cpus": "2", "memory-node": 2},
                                         {"name": "b", "cpus": "6"}]})";
  CommandResult numactl = run(plan("--spec " + tmp + r740 + " --export numactl"));
  ASSERT_EQ(numactl.status, 0) << numactl.err;
  EXPECT_NE(numactl.out.find("numactl --physcpubind=2,6 --membind=2 COMMAND"), std::string::npos)
      << numactl.out;
  CommandResult slurm = run(plan("--spec " + tmp + r740 + " --export slurm"));
  EXPECT_NE(slurm.out.find("--cpu-bind=map_cpu:2,6 --mem-bind=map_mem:2,2"), std::string::npos)
      << slurm.out;
  CommandResult json = run(plan("--spec " + tmp + r740 + " --json"));
  ASSERT_EQ(json.status, 0) << json.err;
  auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["assignments"][0]["memory_node"], 2);  // what `run --plan` applies
  EXPECT_FALSE(j["assignments"][1].contains("memory_node"));
  std::remove(tmp.c_str());
}

}  // namespace

namespace {

// Peak RSS (KiB) of a command run under /usr/bin/time, or -1.
long peak_rss_kib(const std::string& command, std::string* out) {
  const std::string rss_file = "/tmp/tm_plan_rss_" + std::to_string(getpid()) + ".txt";
  CommandResult r = run("/usr/bin/time -f %M -o " + rss_file + " " + command);
  if (out) *out = r.out;
  std::ifstream in(rss_file);
  long kib = -1;
  in >> kib;
  std::filesystem::remove(rss_file);
  return r.status == 0 ? kib : -1;
}

// At 2,048 CPUs a plan that solves nothing must not build a CPU x CPU table (36 MB, most of a
// second): the topology's tree answers each pair. hwloc's own synthetic machine (lstopo).
TEST(CliPlan, TwoThousandCpusWithoutACpuByCpuTable) {
  if (std::system("command -v lstopo-no-graphics >/dev/null && test -x /usr/bin/time") != 0)
    GTEST_SKIP() << "needs lstopo-no-graphics (hwloc) and /usr/bin/time";
  const std::string xml = "/tmp/tm_plan_2048_" + std::to_string(getpid()) + ".xml";
  ASSERT_EQ(
      run("lstopo-no-graphics --input 'pack:8 numa:2 l3:4 core:16 pu:2' --of xml " + xml).status,
      0);
  std::string out;
  const long kib =
      peak_rss_kib(plan("--threads 64 --policy compact --topology " + xml + " --json"), &out);
  const long topo_kib =
      peak_rss_kib(std::string(THREADMAP_BIN) + " topo --topology " + xml, nullptr);
  std::filesystem::remove(xml);
  ASSERT_GT(kib, 0);
  EXPECT_LT(kib, 50 * 1024) << "peak RSS of plan at 2,048 CPUs";
  EXPECT_LT(topo_kib, 50 * 1024) << "peak RSS of topo at 2,048 CPUs";
  auto j = nlohmann::json::parse(out);
  ASSERT_EQ(j["assignments"].size(), 64u);
  // compact: SMT siblings first, so threads 0 and 1 share a core of the first package.
  EXPECT_EQ(j["assignments"][0]["cpus"][0], 0);
  EXPECT_EQ(j["assignments"][1]["cpus"][0], 1);
}

}  // namespace
