// Starting programs: LD_PRELOAD composition, the child environment, exit statuses, starting
// failures, signal forwarding, captured runs with a time limit.
#include "src/os/process.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace threadmap::os {
namespace {

TEST(LdPreload, OursFirstThenExistingButSanitizersStayInFront) {
  EXPECT_EQ(compose_ld_preload({"/l/pin.so", "/l/cache.so"}, nullptr), "/l/pin.so:/l/cache.so");
  EXPECT_EQ(compose_ld_preload({"/l/pin.so"}, "/x/a.so /x/b.so"), "/l/pin.so:/x/a.so:/x/b.so");
  EXPECT_EQ(compose_ld_preload({"/l/pin.so"}, "/usr/lib/libasan.so.8:/x/a.so"),
            "/usr/lib/libasan.so.8:/l/pin.so:/x/a.so");
}

TEST(LdPreload, EmptyEntriesDroppedAndEveryRuntimeKindKeptFirst) {
  EXPECT_EQ(compose_ld_preload({"/l/pin.so"}, "::/x/a.so  "), "/l/pin.so:/x/a.so");
  EXPECT_EQ(compose_ld_preload({"/l/cache.so"}, "/x/a.so:/r/libtsan.so.2:/c/libclang_rt.asan.so"),
            "/r/libtsan.so.2:/c/libclang_rt.asan.so:/l/cache.so:/x/a.so");
  EXPECT_EQ(compose_ld_preload({}, "/x/a.so"), "/x/a.so");
}

TEST(ChildEnvironment, OverridesReplaceAndPreloadIsComposed) {
  setenv("TM_TEST_KEEP", "kept", 1);
  setenv("TM_TEST_REPLACE", "old", 1);
  setenv("LD_PRELOAD", "/x/libasan.so.8", 1);
  LaunchSpec spec;
  spec.argv = {"true"};
  spec.set_env = {{"TM_TEST_REPLACE", "first"}, {"TM_TEST_REPLACE", "second"}};
  spec.preload = {"/l/libthreadmap-cache.so"};
  auto env = child_environment(spec);
  unsetenv("LD_PRELOAD");
  auto count = [&](const std::string& entry) { return std::count(env.begin(), env.end(), entry); };
  EXPECT_EQ(count("TM_TEST_KEEP=kept"), 1);
  EXPECT_EQ(count("TM_TEST_REPLACE=second"), 1);  // the later override wins, once
  EXPECT_EQ(count("TM_TEST_REPLACE=first"), 0);
  EXPECT_EQ(count("TM_TEST_REPLACE=old"), 0);
  EXPECT_EQ(count("LD_PRELOAD=/x/libasan.so.8:/l/libthreadmap-cache.so"), 1);
}

TEST(ExitStatus, ExitCodeOrSignal) {
  EXPECT_EQ(exit_status_of(7 << 8), 7);         // exited with 7
  EXPECT_EQ(exit_status_of(SIGKILL), 128 + 9);  // killed by SIGKILL
}

TEST(Spawn, ReportsAProgramThatCannotStart) {
  LaunchSpec spec;
  spec.argv = {"/nonexistent/program"};
  auto pid = spawn(spec);
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.error().code.value(), ENOENT);
  EXPECT_NE(pid.error().message.find("/nonexistent/program"), std::string::npos);
}

TEST(Spawn, PassesEnvironmentAndExitStatus) {
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", "test \"$TM_TEST_VALUE\" = hello && exit 42"};
  spec.set_env = {{"TM_TEST_VALUE", "hello"}};
  auto pid = spawn(spec);
  ASSERT_TRUE(pid.ok()) << pid.error().message;
  auto status = wait_for_exit(*pid);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(*status, 42);
}

TEST(Spawn, SignalsAreForwarded) {
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", "trap 'exit 33' TERM; while :; do sleep 0.01; done"};
  auto pid = spawn(spec);
  ASSERT_TRUE(pid.ok());
  Result<int> status = Error::invalid("not waited");
  {
    SignalForwarding forwarding(*pid);
    usleep(200000);  // let the shell install its trap
    kill(getpid(), SIGTERM);
    status = wait_for_exit(*pid);
  }
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(*status, 33);
}

TEST(Spawn, StartFailureStatusFollowsTheShell) {
  EXPECT_EQ(start_failure_status(Error::from_errno(ENOENT, "x")), 127);
  EXPECT_EQ(start_failure_status(Error::from_errno(EACCES, "x")), 126);
}

TEST(RunCaptured, CapturesBothStreamsAndStatus) {
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3"};
  spec.search_path = false;
  auto run = run_captured(spec, 10);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run->stdout_text, "out\n");
  EXPECT_EQ(run->stderr_text, "err\n");
  EXPECT_EQ(run->exit_status, 3);
}

TEST(RunCaptured, KillsAHelperPastItsTimeLimit) {
  LaunchSpec spec;
  spec.argv = {"/bin/sleep", "30"};
  spec.search_path = false;
  auto run = run_captured(spec, 0.3);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code.value(), ETIMEDOUT);
}

TEST(RunCaptured, AMissingProgramIsNamed) {
  LaunchSpec spec;
  spec.argv = {"/nonexistent/threadmap-spawn"};
  spec.search_path = false;
  auto run = run_captured(spec, 1);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code.value(), ENOENT);
  EXPECT_NE(run.error().message.find("/nonexistent/threadmap-spawn"), std::string::npos);
}

}  // namespace
}  // namespace threadmap::os
