// The pinned-thread runner: it carries every experiment, so a thread that is not where the
// variant says must show up here.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "src/experiments/pinned_run.hpp"
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
  for (std::size_t i = 0; i + 1 < cpus.size(); ++i) {
    EXPECT_EQ(seen[i], cpus[i]) << i;
  }
  EXPECT_EQ(seen.back(), *allowed);
}

TEST(RunPinned, MeasuresTheBodiesNotTheSetup) {
  auto seconds = run_pinned(
      {{}, {}}, [](std::size_t) { std::this_thread::sleep_for(std::chrono::milliseconds(30)); });
  ASSERT_TRUE(seconds);
  EXPECT_GE(*seconds, 0.029);
  EXPECT_LT(*seconds, 1.0);
}

TEST(RunPinned, ACpuOutsideTheAllowedSetFailsAndNoBodyRuns) {
  auto allowed = allowed_cpus();
  ASSERT_TRUE(allowed);
  std::atomic<int> bodies{0};
  auto seconds =
      run_pinned({CpuSet{allowed->last() + 1000}, {}}, [&](std::size_t) { bodies.fetch_add(1); });
  ASSERT_FALSE(seconds);
  EXPECT_NE(seconds.error().message.find(std::to_string(allowed->last() + 1000)), std::string::npos)
      << seconds.error().message;
  EXPECT_EQ(bodies.load(), 0);
}

}  // namespace
}  // namespace threadmap::experiments
