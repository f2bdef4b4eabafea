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

ThreadSample in_process(pid_t pid, pid_t tid, const std::string& name) {
  ThreadSample s = thread(tid, name, 0, 0);
  s.pid = pid;
  return s;
}

// A followed family: shell 100 starts child 300 (thread 301) at 0.1 s, which ends at 0.2 s;
// child 200 (pid below the first child's) is found later, at 0.2 s.
WatchHistory family_history() {
  WatchHistory h(100, /*follow=*/true);
  h.add({0.0, {in_process(100, 100, "sh")}}, {{100, 50, "sh", "/bin/sh"}});
  h.add({0.1, {in_process(100, 100, "sh"), in_process(300, 300, "sh"), in_process(300, 301, "w")}},
        {{100, 50, "sh", "/bin/sh"}, {300, 100, "sh", "/bin/sh"}});
  h.add({0.2,
         {in_process(100, 100, "sh"), in_process(300, 300, "probe"), in_process(300, 301, "w"),
          in_process(200, 200, "late")}},
        {{100, 50, "sh", "/bin/sh"}, {300, 100, "probe", "/x/probe"}, {200, 100, "late", ""}});
  h.add({0.3, {in_process(100, 100, "sh"), in_process(200, 200, "late")}},
        {{100, 50, "sh", "/bin/sh"}, {200, 100, "late", ""}});
  return h;
}

TEST(WatchHistory, FollowedThreadsAreGroupedByProcessInTheOrderFound) {
  WatchHistory h = family_history();
  std::vector<std::pair<pid_t, pid_t>> order;
  for (const auto& t : h.threads()) order.push_back({t.pid, t.tid});
  EXPECT_EQ(order,
            (std::vector<std::pair<pid_t, pid_t>>{{100, 100}, {300, 300}, {300, 301}, {200, 200}}));
  EXPECT_TRUE(h.threads()[1].main_thread);   // 300 is its own process's main thread
  EXPECT_FALSE(h.threads()[2].main_thread);  // 301 is not
  ASSERT_EQ(h.processes().size(), 3u);
  // After its exec, the process has the new program's name and executable; an unreadable
  // executable keeps none.
  EXPECT_EQ(h.processes()[1].comm, "probe");
  EXPECT_EQ(h.processes()[1].exe, "/x/probe");
  EXPECT_EQ(h.processes()[2].exe, "");
}

TEST(Summary, FollowedProcessesKeepTheirDataAfterTheyEnd) {
  WatchHistory h = family_history();
  auto s = summarize_watch(h, {}, CounterSource::perf, false, "");
  EXPECT_TRUE(s.follow);
  ASSERT_EQ(s.processes.size(), 3u);
  EXPECT_EQ(s.processes[1].pid, 300);
  EXPECT_EQ(s.processes[1].ppid, 100);
  EXPECT_TRUE(s.processes[1].ended);
  EXPECT_DOUBLE_EQ(s.processes[1].first_s, 0.1);
  EXPECT_DOUBLE_EQ(s.processes[1].last_s, 0.2);
  EXPECT_EQ(s.processes[1].threads, 2u);
  EXPECT_FALSE(s.processes[0].ended);
  ASSERT_EQ(s.threads.size(), 4u);
  EXPECT_EQ(s.threads[2].pid, 300);
  EXPECT_EQ(s.threads[2].tid, 301);
}

TEST(Summary, APlanPlacesOnlyTheWatchedProcesssThreads) {
  WatchHistory h = family_history();
  // "main" is the watched shell's main thread, not its children's; ordered entries go to the
  // shell's other threads (it has none), not to the children's.
  auto planned = match_plan(h, {{"main", CpuSet{0}}, {"w", CpuSet{1}}}, false);
  ASSERT_EQ(planned.size(), 4u);
  EXPECT_TRUE(planned[0].has_value());
  EXPECT_FALSE(planned[1].has_value());
  EXPECT_FALSE(planned[2].has_value());
  EXPECT_FALSE(planned[3].has_value());
}

TEST(Summary, NotFollowingLeavesNoProcesses) {
  auto s = summarize_watch(hopping_history(), {}, CounterSource::perf, false, "");
  EXPECT_FALSE(s.follow);
  EXPECT_TRUE(s.processes.empty());
  for (const auto& t : s.threads) EXPECT_EQ(t.pid, 100);
}

}  // namespace
}  // namespace threadmap::monitor

namespace threadmap::monitor {
namespace {

ThreadSample started(pid_t tid, const std::string& name, std::uint64_t start_ticks,
                     std::uint64_t cpu_ns, std::uint64_t wait_ns = 0) {
  ThreadSample s;
  s.tid = tid;
  s.name = name;
  s.cpu = 0;
  s.start_ticks = start_ticks;
  s.counts.task_clock_ns = cpu_ns;
  s.counts.wait_ns = wait_ns;
  return s;
}

// The JVM launcher: `java` (the first thread, tid = pid) starts the VM in a second `java` thread
// and waits; a worker exits and the kernel hands its tid to a new thread. The summary marks the
// first thread, keeps the reused tid apart, and counts the threads seen.
TEST(WatchHistory, FirstThreadReusedTidAndThreadCounts) {
  WatchHistory h(500);
  h.add({0.0, {started(500, "java", 10, 0), started(501, "java", 11, 0)}});
  h.add({0.1,
         {started(500, "java", 10, 0), started(501, "java", 11, 90'000'000),
          started(502, "worker", 20, 1'000'000)}});
  // 502 exited; another thread got tid 502 (a later start time).
  h.add({0.2,
         {started(500, "java", 10, 0), started(501, "java", 11, 180'000'000),
          started(502, "worker", 25, 0), started(503, "gc", 26, 0)}});
  ASSERT_EQ(h.threads().size(), 5u);
  EXPECT_EQ(h.peak_threads(), 4u);
  WatchSummary s = summarize_watch(h, {}, CounterSource::perf, false, "");
  ASSERT_EQ(s.threads.size(), 5u);
  EXPECT_TRUE(s.threads[0].main_thread);
  EXPECT_EQ(s.threads[0].tid, 500);
  EXPECT_FALSE(s.threads[1].main_thread);
  EXPECT_EQ(s.threads[1].name, "java");
  int reused = 0, with_502 = 0;
  for (const ThreadSummary& t : s.threads) {
    reused += t.tid_reused ? 1 : 0;
    with_502 += t.tid == 502 ? 1 : 0;
  }
  EXPECT_EQ(reused, 1);
  EXPECT_EQ(with_502, 2);
  EXPECT_EQ(s.threads_at_start, 2u);
  EXPECT_EQ(s.threads_started, 3u);  // 502, the second 502, 503
  EXPECT_EQ(s.peak_threads, 4u);
}

// A thread that barely ran splits into asleep and starved spans by its run-queue wait.
TEST(WatchHistory, StarvedSpansAreToldFromSleepingOnes) {
  WatchHistory h(600);
  h.add({0.0, {started(600, "app", 1, 0, 0)}});
  h.add({0.1, {started(600, "app", 1, 1'000'000, 1'000'000)}});    // asleep: 1% ran, 1% waited
  h.add({0.2, {started(600, "app", 1, 2'000'000, 60'000'000)}});   // starved: 1% ran, 59% waited
  h.add({0.3, {started(600, "app", 1, 90'000'000, 70'000'000)}});  // running: 88% ran
  const auto& spans = h.threads()[0].spans;
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_FALSE(spans[0].active);
  EXPECT_FALSE(spans[0].starved);
  EXPECT_TRUE(spans[1].starved);
  EXPECT_NEAR(spans[1].wait_s, 0.059, 1e-9);
  EXPECT_TRUE(spans[2].active);
  EXPECT_FALSE(spans[2].starved);
}

}  // namespace
}  // namespace threadmap::monitor
