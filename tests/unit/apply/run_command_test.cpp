// `threadmap run` as one library call: options that cannot work are refused before the program
// starts (and say how the CLI reports them), and a run reports the program's own status.
#include "src/apply/run_command.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace threadmap::apply {
namespace {

// A file the command creates when it runs: its absence proves the program never started.
std::string marker_path(const std::string& name) {
  return testing::TempDir() + "/tm_run_command_" + std::to_string(getpid()) + "_" + name;
}

RunCommand touching(const std::string& marker) {
  RunCommand command;
  command.request.command = {"/bin/sh", "-c", "touch '" + marker + "'"};
  return command;
}

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

TEST(RunCommand, AnIntervalWithoutAWatchIsAUsageErrorAndNothingStarts) {
  std::string marker = marker_path("interval");
  RunCommand command = touching(marker);
  command.request.cpus = "0";
  command.interval_given = true;
  RunReport report = run_command(command);
  ASSERT_TRUE(report.stopped.has_value());
  EXPECT_EQ(report.stopped->kind, RunStopKind::usage);
  EXPECT_NE(report.stopped->error.message.find("--interval applies to --watch only"),
            std::string::npos)
      << report.stopped->error.message;
  EXPECT_FALSE(exists(marker));
}

TEST(RunCommand, APolicyWithoutACpuListIsAUsageError) {
  std::string marker = marker_path("policy");
  RunCommand command = touching(marker);
  command.request.plan_path = "/nonexistent/plan.json";
  command.policy_given = true;
  RunReport report = run_command(command);
  ASSERT_TRUE(report.stopped.has_value());
  EXPECT_EQ(report.stopped->kind, RunStopKind::usage);
  EXPECT_NE(report.stopped->error.message.find("--policy"), std::string::npos);
  EXPECT_FALSE(exists(marker));
}

TEST(RunCommand, AnUnreadablePlanIsAFailureAboutThePlan) {
  std::string marker = marker_path("plan");
  RunCommand command = touching(marker);
  command.request.plan_path = "/nonexistent/plan.json";
  RunReport report = run_command(command);
  ASSERT_TRUE(report.stopped.has_value());
  EXPECT_EQ(report.stopped->kind, RunStopKind::failure);
  EXPECT_EQ(report.stopped->field, RunField::plan);
  EXPECT_FALSE(exists(marker));
}

TEST(RunCommand, ACpuOutsideTheMachineIsAUsageErrorAboutTheCpus) {
  RunCommand command = touching(marker_path("cpus"));
  command.request.cpus = "100000";
  RunReport report = run_command(command);
  ASSERT_TRUE(report.stopped.has_value());
  EXPECT_EQ(report.stopped->kind, RunStopKind::usage);
  EXPECT_EQ(report.stopped->field, RunField::cpus);
}

TEST(RunCommand, ReportsTheProgramsStatusAndItsWatch) {
#ifdef THREADMAP_SANITIZED
  // The pin library this program runs under is built with the sanitizer too, whose runtime must
  // come first in LD_PRELOAD: the sanitizer aborts the program instead. The integration tests run
  // this path in the plain build (DEVELOPING.md, "Tests").
  GTEST_SKIP() << "sanitizer build: the preloaded pin library needs the sanitizer runtime first";
#endif

  RunCommand command;
  command.request.cpus = "0";
  command.request.command = {"/bin/sh", "-c", "exit 6"};
  command.watch = true;
  command.interval_ms = 10;
  RunReport report = run_command(command);
  ASSERT_FALSE(report.stopped.has_value()) << report.stopped->error.message;
  EXPECT_EQ(report.exit_status, 6);
  EXPECT_TRUE(report.watched.has_value());
  EXPECT_FALSE(report.output_error.has_value());
}

TEST(RunCommand, AProgramThatCannotStartIsAStartStop) {
  RunCommand command;
  command.request.cpus = "0";
  command.request.command = {"/nonexistent/tm-program"};
  RunReport report = run_command(command);
  ASSERT_TRUE(report.stopped.has_value());
  EXPECT_EQ(report.stopped->kind, RunStopKind::start);
}

TEST(RunCommand, TheMemoryPolicyIsNotedBeforeTheStartOnlyWhenVerbose) {
#ifdef THREADMAP_SANITIZED
  // The pin library this program runs under is built with the sanitizer too, whose runtime must
  // come first in LD_PRELOAD: the sanitizer aborts the program instead. The integration tests run
  // this path in the plain build (DEVELOPING.md, "Tests").
  GTEST_SKIP() << "sanitizer build: the preloaded pin library needs the sanitizer runtime first";
#endif

  std::string marker = marker_path("note");
  RunCommand command = touching(marker);
  command.request.cpus = "0";
  command.request.memory = "local";
  std::vector<std::string> notes;
  bool started_before_note = false;
  command.note = [&](const std::string& line) {
    started_before_note = exists(marker);
    notes.push_back(line);
  };
  RunReport quiet = run_command(command);
  ASSERT_FALSE(quiet.stopped.has_value()) << quiet.stopped->error.message;
  EXPECT_TRUE(notes.empty());
  unlink(marker.c_str());
  command.request.verbose = true;
  RunReport verbose = run_command(command);
  ASSERT_FALSE(verbose.stopped.has_value()) << verbose.stopped->error.message;
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_FALSE(started_before_note);
  EXPECT_TRUE(exists(marker));
  unlink(marker.c_str());
}

TEST(RunCommand, StatsWithoutTheThreadCacheIsAUsageErrorAndNothingStarts) {
  std::string marker = marker_path("stats");
  RunCommand command = touching(marker);
  command.stats = true;
  RunReport report = run_command(command);
  ASSERT_TRUE(report.stopped.has_value());
  EXPECT_EQ(report.stopped->kind, RunStopKind::usage);
  EXPECT_NE(report.stopped->error.message.find("--stats applies to --thread-cache only"),
            std::string::npos)
      << report.stopped->error.message;
  EXPECT_FALSE(exists(marker));
}

TEST(RunCommand, StatsSumTheLinesEveryProcessWroteAndTheFileIsGoneAfter) {
#ifdef THREADMAP_SANITIZED
  GTEST_SKIP() << "sanitizer build: the preloaded cache library needs the sanitizer runtime first";
#endif
  // The program appends two lines itself, as two processes of the tree would, and says where
  // the file was. A TM_CACHE_STATS the user set is replaced: the lines must come back to run.
  std::string marker = marker_path("stats_path");
  setenv("TM_CACHE_STATS", "1", 1);
  RunCommand command;
  command.request.thread_cache = true;
  command.stats = true;
  command.request.command = {
      "/bin/sh", "-c",
      "printf '%s\\n' 'tm-cache-stats/1 pid=424201 comm=a from-cache=30 from-system=2 "
      "bypassed=1 retired.fork=2' >>\"$TM_CACHE_STATS\" && printf '%s\\n' 'tm-cache-stats/1 "
      "pid=424202 comm=b from-cache=7 from-system=0 bypassed=0 retired.fork=1' "
      ">>\"$TM_CACHE_STATS\" && printf '%s' \"$TM_CACHE_STATS\" >'" +
          marker + "'"};
  RunReport report = run_command(command);
  unsetenv("TM_CACHE_STATS");
  ASSERT_FALSE(report.stopped.has_value()) << report.stopped->error.message;
  EXPECT_EQ(report.exit_status, 0);
  ASSERT_TRUE(report.cache_stats.has_value());
  ASSERT_TRUE(*report.cache_stats) << report.cache_stats->error().message;
  const CacheStatsSummary& stats = **report.cache_stats;
  // The shell itself may add its own line (a cache that writes the file): it creates no thread.
  int ours = 0;
  for (const auto& p : stats.processes) ours += p.pid == 424201 || p.pid == 424202;
  EXPECT_EQ(ours, 2);
  EXPECT_EQ(stats.from_cache, 37u);
  EXPECT_EQ(stats.from_system, 2u);
  EXPECT_EQ(stats.bypassed, 1u);
  ASSERT_FALSE(stats.retired.empty());
  EXPECT_EQ(stats.retired[0].cause, "fork");
  EXPECT_EQ(stats.retired[0].threads, 3u);
  // The file the program was given: absolute, and removed once read.
  FILE* f = fopen(marker.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char path[4096] = {};
  size_t n = fread(path, 1, sizeof path - 1, f);
  fclose(f);
  unlink(marker.c_str());
  ASSERT_GT(n, 0u);
  EXPECT_EQ(path[0], '/') << path;
  EXPECT_FALSE(exists(path)) << path;
}

}  // namespace
}  // namespace threadmap::apply
