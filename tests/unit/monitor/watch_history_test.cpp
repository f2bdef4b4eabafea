// WatchHistory and summarize_watch() on synthetic samples: spans, rates, plan shares.
#include "src/monitor/watch_history.hpp"

#include <gtest/gtest.h>

namespace threadmap::monitor {
namespace {

ThreadSample thread(pid_t tid, const std::string& name, int cpu, std::uint64_t migrations) {
  ThreadSample s;
  s.tid = tid;
  s.name = name;
  s.cpu = cpu;
  s.counts.migrations = migrations;
  s.counts.context_switches = migrations * 2;
  s.counts.task_clock_ns = 1000000;
  return s;
}

WatchHistory hopping_history() {
  // Process 100: main on CPU 0 throughout; tid 101 hops 0 -> 1 -> 1 -> 0; tid 102 appears late.
  WatchHistory h(100);
  h.add({0.0, {thread(100, "app", 0, 0), thread(101, "worker", 0, 0)}});
  h.add({0.1, {thread(100, "app", 0, 0), thread(101, "worker", 1, 1)}});
  h.add({0.2, {thread(100, "app", 0, 0), thread(101, "worker", 1, 1), thread(102, "io", 1, 0)}});
  h.add({0.3, {thread(100, "app", 0, 0), thread(101, "worker", 0, 2), thread(102, "io", 1, 0)}});
  return h;
}

TEST(WatchHistory, MergesSpansWhileTheCpuStaysTheSame) {
  WatchHistory h = hopping_history();
  ASSERT_EQ(h.threads().size(), 3u);
  const ThreadTrack& main = h.threads()[0];
  EXPECT_TRUE(main.main_thread);
  ASSERT_EQ(main.spans.size(), 1u);
  EXPECT_DOUBLE_EQ(main.spans[0].end_s, 0.3);
  const ThreadTrack& worker = h.threads()[1];
  ASSERT_EQ(worker.spans.size(), 3u);
  EXPECT_EQ(worker.spans[1].cpu, 1);
  EXPECT_DOUBLE_EQ(worker.spans[1].start_s, 0.1);
  EXPECT_DOUBLE_EQ(worker.spans[1].end_s, 0.3);
  EXPECT_EQ(h.threads()[2].tid, 102);
  EXPECT_EQ(h.samples(), 4u);
}

TEST(Summary, RatesCpusVisitedAndTotals) {
  WatchHistory h = hopping_history();
  auto s = summarize_watch(h, {}, CounterSource::perf, false, "no PMU");
  ASSERT_EQ(s.threads.size(), 3u);
  EXPECT_NEAR(s.duration_s, 0.3, 1e-9);
  EXPECT_EQ(s.threads[1].migrations, 2u);
  EXPECT_NEAR(s.threads[1].migrations_per_s, 2 / 0.3, 1e-6);
  EXPECT_EQ(s.threads[1].cpus_visited.to_list(), "0-1");
  EXPECT_EQ(s.threads[0].migrations, 0u);
  EXPECT_EQ(s.threads[0].cpus_visited.to_list(), "0");
  EXPECT_EQ(s.total_migrations, 2u);
  EXPECT_FALSE(s.threads[0].share_on_planned.has_value());
}

TEST(Summary, ShareOnPlannedByCreationOrder) {
  WatchHistory h = hopping_history();
  auto planned = match_plan(h, {{"main", CpuSet{0}}, {"w", CpuSet{1}}, {"i", CpuSet{0}}}, false);
  auto s = summarize_watch(h, planned, CounterSource::perf, false, "");
  ASSERT_TRUE(s.threads[0].share_on_planned);
  EXPECT_DOUBLE_EQ(*s.threads[0].share_on_planned, 1.0);
  EXPECT_DOUBLE_EQ(*s.threads[1].share_on_planned, 0.5);  // 2 of 4 samples on CPU 1
  EXPECT_DOUBLE_EQ(*s.threads[2].share_on_planned, 0.0);
}

TEST(Summary, ShareOnPlannedByName) {
  WatchHistory h = hopping_history();
  auto planned = match_plan(h, {{"io", CpuSet{1}}, {"nobody", CpuSet{0}}}, true);
  EXPECT_FALSE(planned[0].has_value());
  EXPECT_FALSE(planned[1].has_value());
  ASSERT_TRUE(planned[2].has_value());
  EXPECT_EQ(planned[2]->to_list(), "1");
}

}  // namespace
}  // namespace threadmap::monitor
