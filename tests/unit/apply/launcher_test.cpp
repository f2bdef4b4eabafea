// Launcher helpers: LD_PRELOAD composition, exit statuses, starting failures.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "src/apply/launcher.hpp"

namespace threadmap::apply {
namespace {

TEST(LdPreload, OursFirstThenExistingButSanitizersStayInFront) {
  EXPECT_EQ(compose_ld_preload({"/l/pin.so", "/l/cache.so"}, nullptr), "/l/pin.so:/l/cache.so");
  EXPECT_EQ(compose_ld_preload({"/l/pin.so"}, "/x/a.so /x/b.so"), "/l/pin.so:/x/a.so:/x/b.so");
  EXPECT_EQ(compose_ld_preload({"/l/pin.so"}, "/usr/lib/libasan.so.8:/x/a.so"),
            "/usr/lib/libasan.so.8:/l/pin.so:/x/a.so");
}

TEST(ExitStatus, ExitCodeOrSignal) {
  EXPECT_EQ(exit_status_of(7 << 8), 7);            // exited with 7
  EXPECT_EQ(exit_status_of(SIGKILL), 128 + 9);     // killed by SIGKILL
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
  forward_signals_to(*pid);
  usleep(200000);  // let the shell install its trap
  kill(getpid(), SIGTERM);
  auto status = wait_for_exit(*pid);
  stop_forwarding();
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(*status, 33);
}

}  // namespace
}  // namespace threadmap::apply
