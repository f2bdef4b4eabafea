// threadmap run: every thread on its planned CPU from its first instruction, for pthreads,
// std::async and OpenMP; thousands of threads without memory growth; --inherit; invalid
// configurations leave the program running unpinned; exit statuses pass through.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "tests/integration/run/run_helpers.hpp"

namespace {

using tm_test::have_cpus_0_and_1;
using tm_test::placements;
using tm_test::run;

const std::string kTm = THREADMAP_BIN;
const std::string kProbe = PIN_PROBE;

class Run : public ::testing::Test {
 protected:
  void SetUp() override {
#ifdef THREADMAP_SANITIZED
    GTEST_SKIP() << "sanitizer build: preloading into instrumented probes needs the sanitizer "
                    "runtime first in LD_PRELOAD";
#endif
    if (!have_cpus_0_and_1()) GTEST_SKIP() << "needs CPUs 0 and 1";
  }
};

// Plan over CPUs 0 and 1 where neighbours differ, so inheriting the creator's CPU is caught.
std::string plan_file(const std::string& name) {
  return tm_test::write_temp(name, R"({"schema":"threadmap.plan/1","assignments":[
    {"thread":"main","cpus":[0]},{"thread":"worker-0","cpus":[1]},{"thread":"worker-1","cpus":[0]},
    {"thread":"worker-2","cpus":[1]},{"thread":"worker-3","cpus":[0]}],"cost":1,"model":"test"})");
}

TEST_F(Run, NamedThreadsLandOnPlannedCpusFromTheirFirstInstruction) {
  std::string plan = plan_file("order.json");
  // Several rounds: a thread that starts on the wrong CPU even once in a while must fail.
  for (int round = 0; round < 5; ++round) {
    auto o = run(kTm + " run --plan " + plan + " -- " + kProbe + " named 4");
    ASSERT_EQ(o.status, 0) << o.err;
    auto p = placements(o.out);
    ASSERT_EQ(p.size(), 6u) << o.out;  // main-start, main and the four workers
    const char* expected[][2] = {
        {"main", "0"}, {"worker-0", "1"}, {"worker-1", "0"}, {"worker-2", "1"}, {"worker-3", "0"}};
    for (auto& [label, cpu] : expected) {
      EXPECT_EQ(p[label].affinity, cpu) << label;
      EXPECT_EQ(std::to_string(p[label].cpu), cpu) << label;
    }
  }
}

TEST_F(Run, AThreadsOwnAffinityAttributeWinsUnlessOverridden) {
  // The program puts its first thread on CPU 1 itself; run --cpus 0 places the rest.
  auto o = run(kTm + " run --cpus 0 --verbose -- " + kProbe + " ownaffinity 1");
  ASSERT_EQ(o.status, 0) << o.err;
  auto p = placements(o.out);
  EXPECT_EQ(p["own-0"].affinity, "1") << o.out;
  EXPECT_EQ(p["thread-1"].affinity, "0") << o.out;
  EXPECT_NE(o.err.find("kept its own affinity"), std::string::npos) << o.err;
  auto forced = run(kTm + " run --cpus 0 --override-affinity -- " + kProbe + " ownaffinity 1");
  ASSERT_EQ(forced.status, 0) << forced.err;
  auto q = placements(forced.out);
  EXPECT_EQ(q["own-0"].affinity, "0") << forced.out;
  EXPECT_EQ(q["thread-1"].affinity, "0") << forced.out;
}

TEST_F(Run, TheMainThreadRunsOnTheWholeShareUntilItsFirstThread) {
  // What runtimes size themselves by before they make threads (Go's osinit, nproc, xz -T0):
  // the whole share, as under taskset -c 0-1; the main rule applies at the first thread.
  const std::string rr = " run --cpus 0-1 --policy round-robin -- " + kProbe + " pthreads 2";
  auto o = run(kTm + rr);
  ASSERT_EQ(o.status, 0) << o.err;
  auto p = placements(o.out);
  EXPECT_EQ(p["main-start"].affinity, "0,1") << o.out;
  EXPECT_EQ(p["main"].affinity, "0") << o.out;
  EXPECT_EQ(p["thread-0"].affinity, "1") << o.out;
  EXPECT_EQ(p["thread-1"].affinity, "0") << o.out;
  // TM_PIN_SHARE_VIEW=0: the main thread pinned before main(), each thread seeing its own mask.
  auto pinned = run("TM_PIN_SHARE_VIEW=0 " + kTm + rr);
  ASSERT_EQ(pinned.status, 0) << pinned.err;
  EXPECT_EQ(placements(pinned.out)["main-start"].affinity, "0") << pinned.out;
  // A program that never makes a thread keeps the share, as under taskset.
  auto single = run(kTm + " run --cpus 0-1 -- " + kProbe + " exit 0");
  ASSERT_EQ(single.status, 0) << single.err;
  EXPECT_EQ(placements(single.out)["main"].affinity, "0,1") << single.out;
}

TEST_F(Run, ByNameMatchesThreadNamesNotCreationOrder) {
  // Listed in another order than the program creates them.
  std::string plan = tm_test::write_temp("byname.json", R"({"schema":"threadmap.plan/1",
    "assignments":[{"thread":"worker-2","cpus":[0]},{"thread":"worker-0","cpus":[0]},
    {"thread":"worker-1","cpus":[1]},{"thread":"main","cpus":[1]}]})");
  auto o = run(kTm + " run --plan " + plan + " --by-name -- " + kProbe + " named 3");
  ASSERT_EQ(o.status, 0) << o.err;
  auto p = placements(o.out);
  EXPECT_EQ(p["main"].affinity, "1");
  EXPECT_EQ(p["worker-0"].affinity, "0");
  EXPECT_EQ(p["worker-1"].affinity, "1");
  EXPECT_EQ(p["worker-2"].affinity, "0");
  EXPECT_EQ(p["worker-1"].cpu, 1);
}

TEST_F(Run, StdAsyncTasksArePinned) {
  // --cpus 0-1 round-robin: main -> 0, then created threads cycle 1, 0, 1, ...
  auto o = run(kTm + " run --cpus 0-1 --policy round-robin -- " + kProbe + " async 3");
  ASSERT_EQ(o.status, 0) << o.err;
  auto p = placements(o.out);
  EXPECT_EQ(p["main"].affinity, "0");
  EXPECT_EQ(p["async-0"].affinity, "1");
  EXPECT_EQ(p["async-1"].affinity, "0");
  EXPECT_EQ(p["async-2"].affinity, "1");
  EXPECT_EQ(p["async-2"].cpu, 1);
}

TEST_F(Run, OpenMpThreadsArePinned) {
#ifndef OMP_PROBE
  GTEST_SKIP() << "OpenMP not found at build time";
#else
  std::string plan = tm_test::write_temp("omp.json", R"({"schema":"threadmap.plan/1",
    "assignments":[{"thread":"main","cpus":[1]},{"thread":"omp-1","cpus":[0]}]})");
  auto o = run("OMP_NUM_THREADS=2 OMP_PROC_BIND=false " + kTm + " run --plan " + plan + " -- " +
               OMP_PROBE);
  ASSERT_EQ(o.status, 0) << o.err;
  auto p = placements(o.out);
  EXPECT_EQ(p["omp-0"].affinity, "1");  // the master thread is the main thread
  EXPECT_EQ(p["omp-1"].affinity, "0");
  EXPECT_EQ(p["omp-1"].cpu, 0);
  // By the start routine's library: libgomp's threads -> CPU 0, the rest -> CPU 1.
  auto l = run("OMP_NUM_THREADS=3 " + kTm + " run --cpus 1 --lib 'libgomp*=0' -- " + OMP_PROBE);
  ASSERT_EQ(l.status, 0) << l.err;
  auto q = placements(l.out);
  EXPECT_EQ(q["omp-0"].affinity, "1");
  EXPECT_EQ(q["omp-1"].affinity, "0");
  EXPECT_EQ(q["omp-2"].affinity, "0");
#endif
}

TEST_F(Run, SkippedThreadsKeepTheOriginalAffinity) {
  auto o = run(kTm + " run --cpus 0-1 --policy round-robin --skip 1 -- " + kProbe + " pthreads 3");
  ASSERT_EQ(o.status, 0) << o.err;
  auto p = placements(o.out);
  EXPECT_EQ(p["thread-0"].affinity, "1");
  EXPECT_EQ(p["thread-1"].affinity, "0,1");  // skipped: not the main thread's pin either
  EXPECT_EQ(p["thread-2"].affinity, "0");    // skipped threads take no slot
}

TEST_F(Run, ThousandsOfConcurrentThreadsAreAllPinned) {
  auto o = run(kTm + " run --cpus 0-1 --policy round-robin -- " + kProbe + " pthreads 3000");
  ASSERT_EQ(o.status, 0) << o.err;
  auto p = placements(o.out);
  ASSERT_EQ(p.size(), 3002u);  // main-start, main and the threads
  int wrong = 0;
  for (int k = 0; k < 3000; ++k)
    wrong += p["thread-" + std::to_string(k)].affinity != std::to_string((k + 1) % 2);
  EXPECT_EQ(wrong, 0);
}

TEST_F(Run, TenThousandThreadsWithoutMemoryGrowth) {
  auto growth = [](const tm_test::Output& o) {
    auto pos = o.out.find("rss_growth_kib=");
    return pos == std::string::npos ? -1L : std::stol(o.out.substr(pos + 15));
  };
  auto plain = run(kProbe + " many 10000");
  auto pinned = run(kTm + " run --cpus 0-1 -- " + kProbe + " many 10000");
  ASSERT_EQ(plain.status, 0);
  ASSERT_EQ(pinned.status, 0) << pinned.err;
  ASSERT_GE(growth(plain), 0);
  ASSERT_GE(growth(pinned), 0);
  // Even 100 bytes leaked per thread would be ~1 MiB here.
  EXPECT_LT(growth(pinned), growth(plain) + 512) << "plain " << growth(plain);
}

// A wrapper in front of the program (env, sh -c, a script) leaves the placement to the program
// that runs the threads: each of them must place the probe's threads exactly as a direct run.
void expect_round_robin_of_three(const tm_test::Output& o, const std::string& how) {
  ASSERT_EQ(o.status, 0) << how << ": " << o.err;
  auto p = placements(o.out);
  EXPECT_EQ(p["main"].affinity, "0") << how << "\n" << o.out;
  EXPECT_EQ(p["thread-0"].affinity, "1") << how << "\n" << o.out;
  EXPECT_EQ(p["thread-1"].affinity, "0") << how << "\n" << o.out;
  EXPECT_EQ(p["thread-2"].affinity, "1") << how << "\n" << o.out;
  EXPECT_EQ(p["thread-2"].cpu, 1) << how;
}

TEST_F(Run, AWrapperThatExecsTheProgramLeavesThePlacementToIt) {
  const std::string rr = kTm + " run --cpus 0-1 --policy round-robin -- ";
  expect_round_robin_of_three(run(rr + kProbe + " pthreads 3"), "direct");
  expect_round_robin_of_three(run(rr + "env X=1 " + kProbe + " pthreads 3"), "env");
  expect_round_robin_of_three(run(rr + "sh -c '" + kProbe + " pthreads 3'"), "sh -c");
  // `; true` keeps the shell alive: the probe is a forked child of sh, not sh exec'd.
  expect_round_robin_of_three(run(rr + "sh -c '" + kProbe + " pthreads 3; true'"),
                              "sh -c with a fork");
  std::string script = tm_test::write_temp(
      "wrapper.sh", "#!/bin/sh\necho starting\n" + kProbe + " pthreads 3\necho done\n");
  ASSERT_EQ(chmod(script.c_str(), 0755), 0);
  expect_round_robin_of_three(run(rr + script), "a script");
  expect_round_robin_of_three(run(rr + "env sh " + script), "env sh script");
}

TEST_F(Run, AThreadSkippedAfterAWrapperGetsTheAffinityTheRunStartedWith) {
  // The wrapper's main thread was pinned to CPU 0 by the main rule; the program it execs starts
  // there, but a skipped thread gets what the run started with (0,1), not the wrapper's pin.
  auto o =
      run(kTm + " run --cpus 0-1 --policy round-robin --skip 1 -- env " + kProbe + " pthreads 3");
  ASSERT_EQ(o.status, 0) << o.err;
  auto p = placements(o.out);
  EXPECT_EQ(p["thread-0"].affinity, "1") << o.out;
  EXPECT_EQ(p["thread-1"].affinity, "0,1") << o.out;
  EXPECT_EQ(p["thread-2"].affinity, "0") << o.out;
}

TEST_F(Run, TheProgramThatRunsThreadsKeepsTheRulesUnlessInherit) {
  std::string plan = plan_file("inherit.json");
  // No thread before the exec: a wrapper, the exec'd program takes the plan from slot 0.
  auto wrapper = run(kTm + " run --plan " + plan + " -- " + kProbe + " exec");
  ASSERT_EQ(wrapper.status, 0) << wrapper.err;
  EXPECT_NE(wrapper.out.find("config_in_env=1 preload_has_pin=1"), std::string::npos)
      << wrapper.out;
  EXPECT_EQ(placements(wrapper.out)["exec/thread-0"].affinity, "1") << wrapper.out;

  // A thread first: the rules are this program's, what it execs gets none and keeps the CPU
  // the kernel carried over from the exec'ing thread (0), not the plan's slot 0 (CPU 1).
  auto off = run(kTm + " run --plan " + plan + " -- " + kProbe + " exec threads");
  ASSERT_EQ(off.status, 0) << off.err;
  EXPECT_EQ(placements(off.out)["thread-0"].affinity, "1") << off.out;
  EXPECT_NE(off.out.find("config_in_env=0 preload_has_pin=0"), std::string::npos) << off.out;
  EXPECT_EQ(placements(off.out)["exec/thread-0"].affinity, "0") << off.out;

  auto on = run(kTm + " run --inherit --plan " + plan + " -- " + kProbe + " exec threads");
  ASSERT_EQ(on.status, 0) << on.err;
  EXPECT_NE(on.out.find("config_in_env=1 preload_has_pin=1"), std::string::npos) << on.out;
  EXPECT_EQ(placements(on.out)["exec/thread-0"].affinity, "1") << on.out;
}

TEST_F(Run, AChildStartedWithAnOldCopyOfTheEnvironmentRunsUnpinned) {
  // The probe copies its environment before its first thread (as Python's os.environ) and
  // starts a child with that copy while the thread runs: the rules are the parent's.
  std::string plan = plan_file("copy.json");
  auto o = run(kTm + " run --verbose --plan " + plan + " -- " + kProbe + " copyenv");
  ASSERT_EQ(o.status, 0) << o.err;
  auto p = placements(o.out);
  EXPECT_EQ(p["thread-0"].affinity, "1") << o.out;
  // Unpinned: it starts on the forking main thread's CPU (0) and its thread inherits that, where
  // the plan's slot 0 would be CPU 1.
  EXPECT_EQ(p["child/thread-0"].affinity, "0") << o.out;
  EXPECT_NE(o.err.find("which runs threads"), std::string::npos) << o.err;
}

TEST_F(Run, AStaticProgramIsPlacedAsAWholeProcessAndSaysSo) {
#ifndef STATIC_PROBE
  GTEST_SKIP() << "no static probe in this build (the toolchain cannot link -static)";
#else
  // No PT_INTERP: the pin library cannot load, so every thread gets the rules' CPUs (taskset)
  // and --mem (numactl), from the thread that starts the program.
  auto o = run(kTm + " run --cpus 1 --mem local -- " + STATIC_PROBE + " 2");
  ASSERT_EQ(o.status, 0) << o.err;
  auto p = placements(o.out);
  for (const char* label : {"main", "thread-0", "thread-1"}) {
    // affinity 1, and set_mempolicy mode 4 (MPOL_LOCAL)
    EXPECT_EQ(p[label].affinity, "1 mempolicy=4") << label << "\n" << o.out;
  }
  EXPECT_EQ(tm_test::count_lines(o.err), 1) << o.err;
  EXPECT_NE(
      o.err.find("threadmap: warning: '" + std::string(STATIC_PROBE) + "' is statically linked"),
      std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("(as taskset -c 1)"), std::string::npos) << o.err;
  // Without placement the program runs as it would: on every CPU it may use.
  auto w = run(kTm + " watch --no-live -- " + STATIC_PROBE + " 1");
  ASSERT_EQ(w.status, 0) << w.err;
  EXPECT_NE(w.err.find("threadmap: watch: warning: '" + std::string(STATIC_PROBE) +
                       "' is statically linked"),
            std::string::npos)
      << w.err;
  EXPECT_EQ(placements(w.out)["thread-0"].affinity, "0,1 mempolicy=0") << w.out;
#endif
}

TEST_F(Run, InvalidConfigurationRunsTheProgramUnpinned) {
  auto o = run("TM_PIN_CONFIG='tm-pin/1;slot=zz:1' LD_PRELOAD=" + std::string(PIN_LIB) + " " +
               kProbe + " exit 7");
  EXPECT_EQ(o.status, 7);
  EXPECT_EQ(tm_test::count_lines(o.err), 1) << o.err;
  EXPECT_EQ(o.err.rfind("threadmap: ", 0), 0u) << o.err;
  EXPECT_NE(o.err.find("slot=zz:1"), std::string::npos);
  EXPECT_EQ(placements(o.out)["main"].affinity, "0,1");
  auto version = run("TM_PIN_CONFIG='tm-pin/9;main=0' LD_PRELOAD=" + std::string(PIN_LIB) + " " +
                     kProbe + " exit 0");
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(tm_test::count_lines(version.err), 1) << version.err;
}

TEST_F(Run, ThreadsReusedByTheThreadCacheArePinnedToo) {
#ifndef CACHE_LIB
  GTEST_SKIP() << "the thread cache library is not part of this build";
#else
  // Serial create+join: with the cache, later "threads" are parked threads reused; the pin
  // wrapper runs on top of the cache, so each start routine still runs on its slot's CPU.
  auto o = run("TM_VERBOSE=0 " + kTm + " run --thread-cache --cpus 0-1 --policy round-robin -- " +
               kProbe + " serial 6");
  ASSERT_EQ(o.status, 0) << o.err;
  auto p = placements(o.out);
  for (int k = 0; k < 6; ++k)
    EXPECT_EQ(p["thread-" + std::to_string(k)].affinity, std::to_string((k + 1) % 2)) << k;
#endif
}

TEST_F(Run, ExitStatusAndStartFailuresPassThrough) {
  EXPECT_EQ(run(kTm + " run --cpus 0 -- " + kProbe + " exit 7").status, 7);
  EXPECT_EQ(run(kTm + " run --cpus 0 -- sh -c 'kill -TERM $$'").status, 128 + 15);
  auto missing = run(kTm + " run --cpus 0 -- /nonexistent/program");
  EXPECT_EQ(missing.status, 127);
  EXPECT_NE(missing.err.find("threadmap: cannot run '/nonexistent/program'"), std::string::npos);
}

TEST_F(Run, BadInputIsRefusedBeforeTheProgramStarts) {
  auto bad_cpu = run(kTm + " run --cpus 9999 -- " + kProbe + " exit 0");
  EXPECT_NE(bad_cpu.status, 0);
  EXPECT_EQ(bad_cpu.out, "");  // the probe never ran
  EXPECT_EQ(tm_test::count_lines(bad_cpu.err), 1) << bad_cpu.err;
  auto bad_plan = run(kTm + " run --plan /nonexistent.json -- " + kProbe + " exit 0");
  EXPECT_NE(bad_plan.status, 0);
  EXPECT_EQ(bad_plan.out, "");
  std::string outside = tm_test::write_temp("outside.json", R"({"schema":"threadmap.plan/1",
    "assignments":[{"thread":"main","cpus":[4000]}]})");
  auto bad = run(kTm + " run --plan " + outside + " -- " + kProbe + " exit 0");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("4000"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.out, "");
}

// One policy engine: for the same CPUs, policy and thread count, `run` pins each thread where
// `plan --policy` places it (thread t of the plan = the probe's main, then thread-0, ...).
TEST_F(Run, PolicyPinsTheCpusPlanAssigns) {
  for (const char* policy : {"compact", "scatter", "round-robin"}) {
    SCOPED_TRACE(policy);
    const int threads = 4;  // more than this machine's CPUs: both cycle over the order
    auto planned = run(kTm + " plan --threads " + std::to_string(threads) + " --policy " + policy +
                       " --oversubscribe --json");
    ASSERT_EQ(planned.status, 0) << planned.err;
    auto plan = nlohmann::json::parse(planned.out);
    ASSERT_EQ(plan["assignments"].size(), static_cast<std::size_t>(threads));
    auto o = run(kTm + " run --cpus all --policy " + policy + " -- " + kProbe + " pthreads " +
                 std::to_string(threads - 1));
    ASSERT_EQ(o.status, 0) << o.err;
    auto p = placements(o.out);
    for (int t = 0; t < threads; ++t) {
      const std::string label = t == 0 ? "main" : "thread-" + std::to_string(t - 1);
      EXPECT_EQ(p[label].affinity, std::to_string(plan["assignments"][t]["cpus"][0].get<int>()))
          << label;
    }
  }
}

}  // namespace
