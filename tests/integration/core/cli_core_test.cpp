// Integration tests: run bin/threadmap as a user would and check what it prints and returns.
#include <gtest/gtest.h>
#include <signal.h>
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

std::string threadmap_cmd(const std::string& args) {
  return std::string(THREADMAP_BIN) + " " + args;
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

bool have_hwloc_calc() { return run("command -v hwloc-calc").status == 0; }

}  // namespace

TEST(CliTopo, ThisMachinePuCountEqualsNproc) {
  CommandResult r = run(threadmap_cmd("topo --json"));
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "threadmap.topology/1");
  EXPECT_EQ(j["counts"]["pus"].get<long>(), sysconf(_SC_NPROCESSORS_ONLN));
  CommandResult summary = run(threadmap_cmd("topo --summary"));
  EXPECT_EQ(summary.status, 0);
  EXPECT_EQ(count_lines(summary.out), 1);
  CommandResult tree = run(threadmap_cmd("topo"));
  EXPECT_EQ(tree.status, 0);
  EXPECT_NE(tree.out.find("PU L#0"), std::string::npos);
}

TEST(CliTopo, CountsAgreeWithHwlocOnEveryRecordedMachine) {
  if (!have_hwloc_calc()) GTEST_SKIP() << "hwloc-calc (package hwloc) is not installed";
  const std::pair<const char*, const char*> keys[] = {{"packages", "package"},
                                                      {"numa_nodes", "numanode"},
                                                      {"l3_caches", "l3cache"},
                                                      {"cores", "core"},
                                                      {"pus", "pu"}};
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(THREADMAP_TEST_DATA) + "/topologies")) {
    if (entry.path().extension() != ".xml") continue;
    ++files;
    std::string path = entry.path().string();
    SCOPED_TRACE(path);
    CommandResult r = run(threadmap_cmd("topo --json --topology '" + path + "'"));
    ASSERT_EQ(r.status, 0) << r.err;
    auto counts = nlohmann::json::parse(r.out)["counts"];
    for (const auto& [key, type] : keys) {
      CommandResult h = run(std::string("hwloc-calc --input '") + path + "' -N " + type + " all");
      ASSERT_EQ(h.status, 0) << h.err;
      EXPECT_EQ(counts[key].get<int>(), std::stoi(h.out)) << key;
    }
  }
  EXPECT_GE(files, 5);
}

TEST(CliPs, ListsTheThreadsOfAProcess) {
  CommandResult r = run(threadmap_cmd("ps " + std::to_string(getpid()) + " --json"));
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["threads"].empty());
  EXPECT_EQ(j["threads"][0]["tid"].get<int>(), getpid());
  CommandResult table = run(threadmap_cmd("ps " + std::to_string(getpid())));
  EXPECT_NE(table.out.find("voluntary cs"), std::string::npos);
}

TEST(CliPin, PinsAChildProcessAndTheKernelAgrees) {
  // A child with two threads; pin all of them to the last allowed CPU, read /proc back.
  pid_t child = fork();
  if (child == 0) {
    // Its own process group, so the kill below reaches the backgrounded sleep too: otherwise
    // the sleep outlives the test holding ctest's output pipe, and the test takes 30 s.
    setpgid(0, 0);
    execl("/bin/sh", "sh", "-c", "sleep 30 & wait", static_cast<char*>(nullptr));
    _exit(127);
  }
  usleep(100000);
  std::string cpu = std::to_string(sysconf(_SC_NPROCESSORS_ONLN) - 1);
  CommandResult r =
      run(threadmap_cmd("pin " + std::to_string(child) + " --cpus " + cpu + " --json"));
  EXPECT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["ok"].get<bool>());
  for (const auto& tid : j["pinned"]) {
    std::ifstream status("/proc/" + std::to_string(child) + "/task/" +
                         std::to_string(tid.get<int>()) + "/status");
    std::string line, allowed;
    while (std::getline(status, line))
      if (line.rfind("Cpus_allowed_list:", 0) == 0) allowed = line.substr(line.find(':') + 1);
    allowed.erase(0, allowed.find_first_not_of(" \t"));
    EXPECT_EQ(allowed, cpu);
  }
  kill(-child, SIGKILL);
  waitpid(child, nullptr, 0);
}

TEST(CliErrors, BadInputGetsOneLineAndNonZeroExit) {
  std::string self = std::to_string(getpid());
  const std::string bad[] = {
      "topo --topology /nonexistent.xml",
      "topo --topology " + std::string(THREADMAP_TEST_DATA) + "/README.md",
      "pin " + self + " --cpus 0-x",
      "pin " + self + " --cpus 99999",
      "pin " + self + " --cpus core:9999",
      "pin 999999999 --cpus 0",
      "ps 999999999",
      "pin " + self + " --cpus 0 --threads no-such-thread-name",
      "no-such-command",
      "pin " + self,
  };
  for (const std::string& args : bad) {
    SCOPED_TRACE(args);
    CommandResult r = run(threadmap_cmd(args));
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_EQ(r.err.rfind("threadmap: ", 0), 0u) << r.err;
  }
}
