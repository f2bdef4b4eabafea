// One measured run (src/os/measured_run): the exit status, both output streams in one record,
// the wall time around the program, and its CPU time from the kernel's rusage.
#include "src/os/measured_run.hpp"

#include <gtest/gtest.h>

using namespace threadmap;

TEST(MeasuredRun, KeepsBothStreamsAndTheExitStatus) {
  os::LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo to-out; echo to-err >&2; exit 3"};
  auto run = os::run_measured(spec);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->exit_status, 3);
  EXPECT_NE(run->output.find("to-out"), std::string::npos);
  EXPECT_NE(run->output.find("to-err"), std::string::npos);
}

// A sleeping program: wall time covers the sleep, CPU time stays near zero.
TEST(MeasuredRun, WallCountsSleepCpuDoesNot) {
  os::LaunchSpec spec;
  spec.argv = {"/bin/sleep", "0.2"};
  auto run = os::run_measured(spec);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_GE(run->wall_s, 0.19);
  EXPECT_LT(run->cpu_s, 0.1);
}

// A spinning program: its CPU time is counted (the shell's busy loop, reaped by us).
TEST(MeasuredRun, CpuTimeOfABusyProgram) {
  os::LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"};
  auto run = os::run_measured(spec);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->exit_status, 0);
  EXPECT_GT(run->cpu_s, 0.02);
  EXPECT_LE(run->cpu_s, run->wall_s * 1.05 + 0.01);
}

TEST(MeasuredRun, OutputBeyondTheLimitIsDroppedNotBlocking) {
  os::LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", "head -c 300000 /dev/zero"};
  auto run = os::run_measured(spec, 1000);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->exit_status, 0);
  EXPECT_EQ(run->output.size(), 1000u);
  EXPECT_TRUE(run->output_truncated);
}

TEST(MeasuredRun, MissingProgramIsAnError) {
  os::LaunchSpec spec;
  spec.argv = {"/nonexistent/program"};
  EXPECT_FALSE(os::run_measured(spec));
}
