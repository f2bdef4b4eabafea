// `threadmap watch` checked (watch_request) and run (watch_command): the rules about what to
// watch name the member they refuse and say it is the command line's fault; a plan that cannot
// be read is the work's fault and stops the watch before anything starts.
#include "src/apply/watch_command.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "src/apply/run_options.hpp"

namespace threadmap::apply {
namespace {

TEST(WatchRequest, WhatToWatchIsOneProcessIdOrOneCommand) {
  struct Case {
    WatchOptions options;
    const char* member;
  };
  WatchOptions nothing;
  WatchOptions both;
  both.pid = {"42"};
  both.command = {"true"};
  WatchOptions two;
  two.pid = {"42", "43"};
  WatchOptions word;
  word.pid = {"abc"};
  WatchOptions zero;
  zero.pid = {"0"};
  WatchOptions by_name;
  by_name.command = {"true"};
  by_name.by_name = true;
  for (const Case& c : {Case{nothing, ""}, Case{both, "pid"}, Case{two, "pid"}, Case{word, "pid"},
                        Case{zero, "pid"}, Case{by_name, "by_name"}}) {
    auto command = watch_request(c.options);
    ASSERT_FALSE(command.ok()) << "'" << c.member << "'";
    EXPECT_EQ(command.error().input, c.member) << command.error().message;
    EXPECT_EQ(command.error().fault, Fault::input) << command.error().message;
  }
  // run and watch share the by-name rule: the same words.
  RunOptions run;
  run.command = {"true"};
  run.cpus = "0";
  run.by_name = true;
  EXPECT_EQ(run_request(run).error().message, watch_request(by_name).error().message);
}

TEST(WatchRequest, DefaultsAreAppliedOnce) {
  WatchOptions options;
  options.pid = {"4242"};
  auto command = watch_request(options);
  ASSERT_TRUE(command.ok()) << command.error().message;
  EXPECT_EQ(command->pid, 4242);
  EXPECT_EQ(command->interval_ms, 100);
  EXPECT_EQ(command->duration_s, 0);
  options.interval_ms = 20;
  options.duration_s = 1.5;
  command = watch_request(options);
  ASSERT_TRUE(command.ok()) << command.error().message;
  EXPECT_EQ(command->interval_ms, 20);
  EXPECT_EQ(command->duration_s, 1.5);
}

TEST(WatchCommand, AnUnreadablePlanStopsItBeforeTheProgramStarts) {
  const std::string marker =
      testing::TempDir() + "/tm_watch_command_" + std::to_string(getpid()) + "_plan";
  WatchOptions given;
  given.command = {"/bin/sh", "-c", "touch '" + marker + "'"};
  given.plan_path = "/nonexistent/plan.json";
  auto command = watch_request(given);
  ASSERT_TRUE(command) << command.error().message;
  auto report = watch_command(*command, nullptr);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().input, "plan_path");
  EXPECT_EQ(report.error().fault, Fault::work);
  EXPECT_NE(access(marker.c_str(), F_OK), 0) << "the program ran";
}

TEST(WatchCommand, AProgramThatCannotStartIsAStartFault) {
  WatchOptions given;
  given.command = {"/nonexistent/tm-program"};
  auto command = watch_request(given);
  ASSERT_TRUE(command) << command.error().message;
  auto report = watch_command(*command, nullptr);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().fault, Fault::start);
}

}  // namespace
}  // namespace threadmap::apply
