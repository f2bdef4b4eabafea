// The pinned-thread runner and the subprocess helper: they carry every experiment, so a thread
// that is not where the variant says, or a child that hangs, must show up here.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "src/experiments/pinned_run.hpp"
#include "src/experiments/subprocess.hpp"
#include "threadmap/affinity.hpp"

namespace threadmap::experiments {
namespace {

TEST(RunPinned, EachThreadRunsWhereItWasPinned) {
  auto allowed = allowed_cpus();
  ASSERT_TRUE(allowed);
  std::vector<CpuSet> cpus;
  for (int cpu : allowed->to_vector()) cpus.push_back(CpuSet{cpu});
  cpus.push_back({});  // one thread left to the OS keeps the whole allowed set
  std::mutex lock;
  std::vector<CpuSet> seen(cpus.size());
  auto seconds = run_pinned(cpus, [&](std::size_t i) {
    auto affinity = current_thread_affinity();
    std::lock_guard<std::mutex> guard(lock);
    if (affinity) seen[i] = *affinity;
  });
  ASSERT_TRUE(seconds) << seconds.error().message;
  EXPECT_GE(*seconds, 0);
  for (std::size_t i = 0; i + 1 < cpus.size(); ++i) { EXPECT_EQ(seen[i], cpus[i]) << i; }
  EXPECT_EQ(seen.back(), *allowed);
}

TEST(RunPinned, MeasuresTheBodiesNotTheSetup) {
  auto seconds = run_pinned({{}, {}}, [](std::size_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  });
  ASSERT_TRUE(seconds);
  EXPECT_GE(*seconds, 0.029);
  EXPECT_LT(*seconds, 1.0);
}

TEST(RunPinned, ACpuOutsideTheAllowedSetFailsAndNoBodyRuns) {
  auto allowed = allowed_cpus();
  ASSERT_TRUE(allowed);
  std::atomic<int> bodies{0};
  auto seconds = run_pinned({CpuSet{allowed->last() + 1000}, {}},
                            [&](std::size_t) { bodies.fetch_add(1); });
  ASSERT_FALSE(seconds);
  EXPECT_NE(seconds.error().message.find(std::to_string(allowed->last() + 1000)),
            std::string::npos)
      << seconds.error().message;
  EXPECT_EQ(bodies.load(), 0);
}

TEST(RunProcess, CapturesOutputAndEnvironmentAndExitStatus) {
  auto out = run_process({"/bin/sh", "-c", "echo \"$TM_PROBE\"; echo err >&2; exit 3"},
                         {"TM_PROBE=hello"}, 10);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->stdout_text, "hello\n");
  EXPECT_EQ(out->stderr_text, "err\n");
  EXPECT_EQ(out->exit_status, 3);
}

TEST(RunProcess, KillsAChildThatOverrunsItsTimeLimit) {
  auto start = std::chrono::steady_clock::now();
  auto out = run_process({"/bin/sleep", "30"}, {}, 0.3);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, std::errc::timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(RunProcess, AMissingProgramIsNamed) {
  auto out = run_process({"/nonexistent/threadmap-spawn"}, {}, 1);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("/nonexistent/threadmap-spawn"), std::string::npos);
}

}  // namespace
}  // namespace threadmap::experiments
