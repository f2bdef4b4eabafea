// threadmap run --mem and a plan's memory_node, end to end: tm_mem_probe reads its memory policy
// (get_mempolicy) in main and as the first instruction of each new thread. On a 1-node machine
// every policy is accepted and said to be a no-op, but the kernel still records it, so the
// policy each thread got is visible here too.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/integration/run/run_helpers.hpp"

namespace {

using tm_test::run;

const std::string kTm = THREADMAP_BIN;
const std::string kProbe = MEM_PROBE;

int node_count() {
  int n = 0;
  for (int i = 0; i < 1024; ++i)
    n += std::filesystem::exists("/sys/devices/system/node/node" + std::to_string(i));
  return n;
}

class RunMem : public ::testing::Test {
 protected:
  void SetUp() override {
#ifdef THREADMAP_SANITIZED
    GTEST_SKIP() << "sanitizer build: the preload needs the sanitizer runtime first";
#endif
    if (!std::filesystem::exists("/sys/devices/system/node/node0"))
      GTEST_SKIP() << "kernel without NUMA support (no node0)";
  }
};

TEST_F(RunMem, WithoutMemTheDefaultPolicyIsUntouched) {
  auto plain = run(kProbe + " 2");
  ASSERT_EQ(plain.status, 0) << plain.err;
  auto o = run(kTm + " run --cpus all -- " + kProbe + " 2");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, plain.out);
  EXPECT_NE(o.out.find("main mode=MPOL_DEFAULT nodes=\n"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("thread-1 mode=MPOL_DEFAULT nodes=\n"), std::string::npos) << o.out;
}

TEST_F(RunMem, BindReachesMainAndEveryNewThread) {
  auto o = run(kTm + " run --mem bind:0 -- " + kProbe + " 2");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out,
            "main mode=MPOL_BIND nodes=0\nthread-0 mode=MPOL_BIND nodes=0\n"
            "thread-1 mode=MPOL_BIND nodes=0\n");
  EXPECT_EQ(o.err, "");  // nothing printed without --verbose
}

TEST_F(RunMem, InterleaveWithoutNodesUsesEveryNode) {
  auto o = run(kTm + " run --mem interleave -- " + kProbe + " 1");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("main mode=MPOL_INTERLEAVE nodes=0"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("thread-0 mode=MPOL_INTERLEAVE nodes=0"), std::string::npos) << o.out;
}

TEST_F(RunMem, PreferredAndLocal) {
  auto preferred = run(kTm + " run --mem preferred:0 -- " + kProbe + " 1");
  ASSERT_EQ(preferred.status, 0) << preferred.err;
  EXPECT_EQ(preferred.out,
            "main mode=MPOL_PREFERRED nodes=0\nthread-0 mode=MPOL_PREFERRED nodes=0\n");
  auto local = run(kTm + " run --mem local -- " + kProbe + " 1");
  ASSERT_EQ(local.status, 0) << local.err;
  // Kernels before 5.2 report MPOL_LOCAL as MPOL_PREFERRED with an empty mask.
  EXPECT_TRUE(local.out == "main mode=MPOL_LOCAL nodes=\nthread-0 mode=MPOL_LOCAL nodes=\n" ||
              local.out == "main mode=MPOL_PREFERRED nodes=\nthread-0 mode=MPOL_PREFERRED nodes=\n")
      << local.out;
}

TEST_F(RunMem, MissingNodeIsAUsageErrorAndNothingStarts) {
  if (std::filesystem::exists("/sys/devices/system/node/node7"))
    GTEST_SKIP() << "this machine has a node 7";
  std::string marker = tm_test::write_temp("mem_marker", "");
  std::filesystem::remove(marker);
  auto o = run(kTm + " run --mem bind:7 -- sh -c 'touch " + marker + "'");
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(tm_test::count_lines(o.err), 1) << o.err;
  EXPECT_NE(o.err.find("node 7 does not exist"), std::string::npos) << o.err;
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the command ran";
  auto syntax = run(kTm + " run --mem bind:x -- " + kProbe);
  EXPECT_EQ(syntax.status, 2);
  EXPECT_EQ(tm_test::count_lines(syntax.err), 1) << syntax.err;
  EXPECT_EQ(syntax.out, "");
}

TEST_F(RunMem, VerboseSaysThePolicyAndNoOpOnOneNode) {
  auto o = run(kTm + " run --verbose --mem bind:0 -- " + kProbe + " 1");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.err.find("threadmap: memory policy: bind to node 0"), std::string::npos) << o.err;
  if (node_count() == 1)
    EXPECT_NE(o.err.find("no-op on a 1-node machine"), std::string::npos) << o.err;
  else
    EXPECT_EQ(o.err.find("no-op"), std::string::npos) << o.err;
  // The preload's own line for each thread.
  EXPECT_NE(o.err.find("pin: memory of main thread"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("pin: memory of thread #0"), std::string::npos) << o.err;
}

TEST_F(RunMem, PlanMemoryNodesGoToTheirThreadsOnly) {
  // Slot 0 (the first created thread) and main carry a memory node; slot 1 does not and must
  // not keep the node it would inherit from main.
  std::string plan = tm_test::write_temp("mem_plan.json", R"({"schema":"threadmap.plan/1",
    "assignments":[{"thread":"main","cpus":[0],"memory_node":0},
    {"thread":"a","cpus":[0],"memory_node":0},{"thread":"b","cpus":[0]}]})");
  auto o = run(kTm + " run --plan " + plan + " -- " + kProbe + " 2");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out,
            "main mode=MPOL_PREFERRED nodes=0\nthread-0 mode=MPOL_PREFERRED nodes=0\n"
            "thread-1 mode=MPOL_DEFAULT nodes=\n");
  // A plan naming a node this machine lacks fails before the program starts (exit 1: the
  // plan file cannot be used here).
  if (!std::filesystem::exists("/sys/devices/system/node/node9")) {
    std::string far = tm_test::write_temp("mem_plan9.json", R"({"schema":"threadmap.plan/1",
      "assignments":[{"thread":"a","cpus":[0],"memory_node":9}]})");
    auto bad = run(kTm + " run --plan " + far + " -- " + kProbe);
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.err.find("node 9 does not exist"), std::string::npos) << bad.err;
    EXPECT_EQ(bad.out, "");
    // --mem replaces the plan's nodes, so they need not exist here.
    auto replaced = run(kTm + " run --mem bind:0 --plan " + far + " -- " + kProbe + " 1");
    ASSERT_EQ(replaced.status, 0) << replaced.err;
    EXPECT_EQ(replaced.out, "main mode=MPOL_BIND nodes=0\nthread-0 mode=MPOL_BIND nodes=0\n");
  }
}

TEST_F(RunMem, ByNamePlanNodesApplyWhenAThreadNamesItself) {
  // Listed out of creation order: worker-1 has a node, worker-0 has none.
  std::string plan = tm_test::write_temp("mem_byname.json", R"({"schema":"threadmap.plan/1",
    "assignments":[{"thread":"worker-1","cpus":[0],"memory_node":0},
    {"thread":"worker-0","cpus":[0]}]})");
  auto o = run(kTm + " run --by-name --plan " + plan + " -- " + kProbe + " 2 named");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out,
            "main mode=MPOL_DEFAULT nodes=\nthread-0 mode=MPOL_DEFAULT nodes=\n"
            "thread-1 mode=MPOL_PREFERRED nodes=0\n");
}

TEST_F(RunMem, KernelRefusalIsReportedOnceAndTheProgramRuns) {
  // Written by hand past threadmap's checks: a node the kernel does not have makes
  // set_mempolicy fail with EINVAL in every thread.
  if (std::filesystem::exists("/sys/devices/system/node/node1000")) GTEST_SKIP();
  auto o = run("TM_PIN_CONFIG='tm-pin/1;mem=bind:1000' LD_PRELOAD=" + std::string(PIN_LIB) + " " +
               kProbe + " 3");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("thread-2 mode=MPOL_DEFAULT"), std::string::npos) << o.out;
  EXPECT_EQ(tm_test::count_lines(o.err), 1) << o.err;
  EXPECT_NE(o.err.find("cannot set the memory policy"), std::string::npos) << o.err;
}

TEST_F(RunMem, MalformedMemEntryRunsTheProgramAsIfNotLoaded) {
  auto o = run("TM_PIN_CONFIG='tm-pin/1;mem=bind:zz' LD_PRELOAD=" + std::string(PIN_LIB) + " " +
               kProbe + " 1");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "main mode=MPOL_DEFAULT nodes=\nthread-0 mode=MPOL_DEFAULT nodes=\n");
  EXPECT_NE(o.err.find("invalid TM_PIN_CONFIG entry 'mem=bind:zz'"), std::string::npos) << o.err;
}

}  // namespace
