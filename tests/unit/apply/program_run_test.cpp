// Running a program to its end: the exit-status rule both `run` and `watch -- CMD` follow, the
// watch of a short program, and a request refused before anything starts.
#include "src/apply/program_run.hpp"

#include <gtest/gtest.h>

#include "src/apply/run_options.hpp"

namespace threadmap::apply {
namespace {

TEST(CombinedExitStatus, TheProgramsFailureWinsThenOurs) {
  EXPECT_EQ(combined_exit_status(0, true), 0);
  EXPECT_EQ(combined_exit_status(0, false), 1);
  EXPECT_EQ(combined_exit_status(7, true), 7);
  EXPECT_EQ(combined_exit_status(7, false), 7);
  EXPECT_EQ(combined_exit_status(128 + 15, false), 128 + 15);
}

TEST(RunProgram, PassesTheExitStatusThrough) {
  os::LaunchSpec launch;
  launch.argv = {"/bin/sh", "-c", "exit 5"};
  auto outcome = run_program(launch, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(outcome->exit_status, 5);
  EXPECT_FALSE(outcome->watched.has_value());
}

TEST(RunProgram, WatchesTheProgramUntilItEnds) {
  os::LaunchSpec launch;
  // Long enough (a few hundred ms of shell arithmetic) that the first 10 ms sample always lands
  // before the exit, even on a loaded 2-CPU machine; 20,000 iterations sometimes ended first.
  launch.argv = {"/bin/sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; exit 3"};
  monitor::WatchSettings settings;
  settings.interval_ms = 10;
  auto outcome = run_program(launch, settings);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(outcome->exit_status, 3);
  ASSERT_TRUE(outcome->watched.has_value());
  ASSERT_TRUE(outcome->watched->ok()) << outcome->watched->error().message;
  const monitor::WatchResult& w = **outcome->watched;
  EXPECT_EQ(w.child_status, 3);
  EXPECT_GE(w.history.samples(), 1u);
  ASSERT_FALSE(w.summary.threads.empty());
  EXPECT_GT(w.summary.threads[0].cpu_time_ms, 0);
}

TEST(RunProgram, AProgramThatCannotStartIsAnError) {
  os::LaunchSpec launch;
  launch.argv = {"/nonexistent/tm-program"};
  auto outcome = run_program(launch, std::nullopt);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(os::start_failure_status(outcome.error()), 127);
}

TEST(PrepareRun, ValuesThatCannotWorkHereNameTheirMember) {
  RunOptions given;
  given.command = {"true"};
  given.cpus = "0x0";
  auto empty = prepare_run(run_request(given)->request);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().input, "cpus");
  EXPECT_EQ(empty.error().fault, Fault::input);
  EXPECT_NE(empty.error().message.find("empty"), std::string::npos) << empty.error().message;
  given.cpus = "0";
  given.policy = "spread";  // a plan's quick policy, not one `run` pins by
  auto policy = prepare_run(run_request(given)->request);
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.error().input, "policy");
  EXPECT_EQ(policy.error().fault, Fault::input);
  given.policy = "compact";
  given.skip = {"lib:"};
  auto skip = prepare_run(run_request(given)->request);
  ASSERT_FALSE(skip.ok());
  EXPECT_EQ(skip.error().input, "skip");
  EXPECT_EQ(skip.error().fault, Fault::input);
}

}  // namespace
}  // namespace threadmap::apply
