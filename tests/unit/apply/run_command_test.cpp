// `threadmap run` as the options given, checked (run_request) and run as one library call
// (run_command): options that cannot work are refused before the program starts, naming the
// member and whose fault it is, and a run reports the program's own status.
#include "src/apply/run_command.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "src/apply/run_request.hpp"

namespace threadmap::apply {
namespace {

// A file the command creates when it runs: its absence proves the program never started.
std::string marker_path(const std::string& name) {
  return testing::TempDir() + "/tm_run_command_" + std::to_string(getpid()) + "_" + name;
}

RunOptions touching(const std::string& marker) {
  RunOptions options;
  options.command = {"/bin/sh", "-c", "touch '" + marker + "'"};
  return options;
}

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// The options checked and, when they pass, run: what `threadmap run` does.
Result<RunReport> run(const RunOptions& options, const RunHooks& hooks = {}) {
  auto command = run_request(options);
  if (!command) return command.error();
  return run_command(*command, hooks);
}

TEST(RunCommand, AnIntervalWithoutAWatchIsTheCommandLinesFaultAndNothingStarts) {
  std::string marker = marker_path("interval");
  RunOptions options = touching(marker);
  options.cpus = "0";
  options.interval_ms = 50;
  auto report = run(options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().fault, Fault::input);
  EXPECT_EQ(report.error().input, "interval_ms");
  EXPECT_NE(report.error().message.find("applies to a watch only"), std::string::npos)
      << report.error().message;
  EXPECT_FALSE(exists(marker));
}

TEST(RunCommand, APolicyWithoutACpuListIsTheCommandLinesFault) {
  std::string marker = marker_path("policy");
  RunOptions options = touching(marker);
  options.plan_path = "/nonexistent/plan.json";
  options.policy = "scatter";
  auto report = run(options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().fault, Fault::input);
  EXPECT_EQ(report.error().input, "policy");
  EXPECT_FALSE(exists(marker));
}

TEST(RunCommand, AnUnreadablePlanIsTheWorksFaultAboutThePlan) {
  std::string marker = marker_path("plan");
  RunOptions options = touching(marker);
  options.plan_path = "/nonexistent/plan.json";
  auto report = run(options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().fault, Fault::work);
  EXPECT_EQ(report.error().input, "plan_path");
  EXPECT_FALSE(exists(marker));
}

TEST(RunCommand, ACpuOutsideTheMachineIsTheCommandLinesFaultAboutTheCpus) {
  RunOptions options = touching(marker_path("cpus"));
  options.cpus = "100000";
  auto report = run(options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().fault, Fault::input);
  EXPECT_EQ(report.error().input, "cpus");
}

// Every rule about which options go together, each with the member it blames; none of the
// messages names a flag (the CLI does, from its table).
TEST(RunRequest, EachRuleBetweenOptionsNamesTheMemberItRefuses) {
  struct Case {
    RunOptions options;
    const char* member;
  };
  auto with = [](auto change) {
    RunOptions o;
    o.command = {"true"};
    change(o);
    return o;
  };
  const Case cases[] = {
      {with([](RunOptions& o) {
         o.command.clear();
         o.cpus = "0";
       }),
       "command"},
      {with([](RunOptions& o) {
         o.cpus = "0";
         o.interval_ms = 50;
       }),
       "interval_ms"},
      {with([](RunOptions& o) {
         o.cpus = "0";
         o.follow = true;
       }),
       "follow"},
      {with([](RunOptions& o) {
         o.cpus = "0";
         o.record_dir = "/tmp";
       }),
       "record_dir"},
      {with([](RunOptions& o) {
         o.cpus = "0";
         o.ranks = "0/2";
       }),
       "cpus"},
      {with([](RunOptions& o) {
         o.policy = "scatter";
         o.thread_cache = true;
       }),
       "policy"},
      {with([](RunOptions& o) {
         o.plan_path = "p.json";
         o.ranks = "0/2";
         o.policy = "compact";
       }),
       "policy"},
      {with([](RunOptions& o) {
         o.plan_path = "p.json";
         o.cpus = "0";
       }),
       "cpus"},
      {with([](RunOptions& o) {
         o.by_name = true;
         o.cpus = "0";
       }),
       "by_name"},
      {with([](RunOptions&) {}), ""},  // nothing to apply
  };
  for (const Case& c : cases) {
    auto command = run_request(c.options);
    ASSERT_FALSE(command.ok()) << "'" << c.member << "'";
    EXPECT_EQ(command.error().input, c.member) << command.error().message;
    EXPECT_EQ(command.error().fault, Fault::input) << command.error().message;
    EXPECT_EQ(command.error().message.find("--"), std::string::npos) << command.error().message;
  }
}

TEST(RunRequest, DefaultsAreAppliedOnceAndFollowingNeedsTheWatch) {
  RunOptions options;
  options.command = {"true"};
  options.cpus = "0";
  auto plain = run_request(options);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->request.policy, "compact");
  EXPECT_EQ(plain->interval_ms, 100);
  EXPECT_FALSE(plain->watch);
  options.watch = true;
  options.follow = true;
  options.interval_ms = 20;
  options.policy = "scatter";
  auto watched = run_request(options);
  ASSERT_TRUE(watched.ok()) << watched.error().message;
  EXPECT_EQ(watched->request.policy, "scatter");
  EXPECT_EQ(watched->interval_ms, 20);
  EXPECT_TRUE(watched->follow);
  // A rank's share stands in for the CPU list: a policy orders it.
  RunOptions ranked;
  ranked.command = {"true"};
  ranked.ranks = "0/2";
  ranked.policy = "scatter";
  EXPECT_TRUE(run_request(ranked).ok());
}

TEST(RunCommand, ReportsTheProgramsStatusAndItsWatch) {
#ifdef THREADMAP_SANITIZED
  // The pin library this program runs under is built with the sanitizer too, whose runtime must
  // come first in LD_PRELOAD: the sanitizer aborts the program instead. The integration tests run
  // this path in the plain build (DEVELOPING.md, "Tests").
  GTEST_SKIP() << "sanitizer build: the preloaded pin library needs the sanitizer runtime first";
#endif

  RunOptions options;
  options.cpus = "0";
  options.command = {"/bin/sh", "-c", "exit 6"};
  options.watch = true;
  options.interval_ms = 10;
  auto report = run(options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->exit_status, 6);
  EXPECT_TRUE(report->watched.has_value());
  EXPECT_FALSE(report->output_error.has_value());
}

TEST(RunCommand, AProgramThatCannotStartIsAStartFault) {
  RunOptions options;
  options.cpus = "0";
  options.command = {"/nonexistent/tm-program"};
  auto report = run(options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().fault, Fault::start);
}

TEST(RunCommand, TheMemoryPolicyIsNotedBeforeTheStartOnlyWhenVerbose) {
#ifdef THREADMAP_SANITIZED
  // The pin library this program runs under is built with the sanitizer too, whose runtime must
  // come first in LD_PRELOAD: the sanitizer aborts the program instead. The integration tests run
  // this path in the plain build (DEVELOPING.md, "Tests").
  GTEST_SKIP() << "sanitizer build: the preloaded pin library needs the sanitizer runtime first";
#endif

  std::string marker = marker_path("note");
  RunOptions options = touching(marker);
  options.cpus = "0";
  options.memory = "local";
  std::vector<std::string> notes;
  bool started_before_note = false;
  RunHooks hooks;
  hooks.note = [&](const std::string& line) {
    started_before_note = exists(marker);
    notes.push_back(line);
  };
  auto quiet = run(options, hooks);
  ASSERT_TRUE(quiet.ok()) << quiet.error().message;
  EXPECT_TRUE(notes.empty());
  unlink(marker.c_str());
  options.verbose = true;
  auto verbose = run(options, hooks);
  ASSERT_TRUE(verbose.ok()) << verbose.error().message;
  // The memory policy, then what the program sees of its CPUs (the pin library's share view).
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("memory policy"), std::string::npos) << notes[0];
  EXPECT_EQ(notes[1].rfind("the program sees CPUs 0 (1)", 0), 0u) << notes[1];
  EXPECT_FALSE(started_before_note);
  EXPECT_TRUE(exists(marker));
  unlink(marker.c_str());
}

// The GODEBUG a placed program starts with (empty: not set by run).
std::string godebug_for(const RunOptions& options) {
  auto checked = run_request(options);
  if (!checked) return "error: " + checked.error().message;
  auto launch = prepare_run(checked->request);
  if (!launch) return "error: " + launch.error().message;
  std::string value;
  for (const auto& [name, v] : launch->set_env)
    if (name == "GODEBUG") value = v;
  return value;
}

TEST(RunCommand, GoKeepsTheGomaxprocsItReadFromTheShare) {
  // Go 1.25+ would read the mask again from a thread placed on one CPU and drop to 1.
  RunOptions r;
  r.command = {"true"};
  r.cpus = "0";
  const char* saved = std::getenv("GODEBUG");
  std::string before = saved ? saved : "";
  unsetenv("GODEBUG");
  std::string alone = godebug_for(r);
  if (alone.rfind("error:", 0) == 0) GTEST_SKIP() << alone;  // no pin library next to the tests
  EXPECT_EQ(alone, "updatemaxprocs=0");
  setenv("GODEBUG", "madvdontneed=1", 1);
  EXPECT_EQ(godebug_for(r), "madvdontneed=1,updatemaxprocs=0");
  setenv("GODEBUG", "updatemaxprocs=1", 1);  // the user's own choice stays
  EXPECT_EQ(godebug_for(r), "");
  unsetenv("GODEBUG");
  RunOptions memory_only;
  memory_only.command = {"true"};
  memory_only.memory = "local";
  EXPECT_EQ(godebug_for(memory_only), "");  // no CPUs placed: nothing to keep
  if (saved) setenv("GODEBUG", before.c_str(), 1);
}

TEST(RunCommand, StatsWithoutTheThreadCacheIsTheCommandLinesFaultAndNothingStarts) {
  std::string marker = marker_path("stats");
  RunOptions options = touching(marker);
  options.cpus = "0";
  options.stats = true;
  auto report = run(options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().fault, Fault::input);
  EXPECT_EQ(report.error().input, "stats");
  EXPECT_NE(report.error().message.find("need the thread cache"), std::string::npos)
      << report.error().message;
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
  RunOptions options;
  options.thread_cache = true;
  options.stats = true;
  options.command = {
      "/bin/sh", "-c",
      "printf '%s\\n' 'tm-cache-stats/1 pid=424201 comm=a from-cache=30 from-system=2 "
      "bypassed=1 retired.fork=2' >>\"$TM_CACHE_STATS\" && printf '%s\\n' 'tm-cache-stats/1 "
      "pid=424202 comm=b from-cache=7 from-system=0 bypassed=0 retired.fork=1' "
      ">>\"$TM_CACHE_STATS\" && printf '%s' \"$TM_CACHE_STATS\" >'" +
          marker + "'"};
  auto report = run(options);
  unsetenv("TM_CACHE_STATS");
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->exit_status, 0);
  ASSERT_TRUE(report->cache_stats.has_value());
  ASSERT_TRUE(*report->cache_stats) << report->cache_stats->error().message;
  const CacheStatsSummary& stats = **report->cache_stats;
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
