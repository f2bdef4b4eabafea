// watch --follow's views from a followed family built by hand: each thread labelled with its
// process in the live table, the summary grouped by process, the JSON's pid/comm and
// processes[]; and a watch without --follow keeps its JSON keys exactly.
#include <gtest/gtest.h>

#include "src/render/watch_timeline.hpp"
#include "src/render/watch_view.hpp"

namespace threadmap::render {
namespace {

monitor::ThreadSample thread_of(pid_t pid, pid_t tid, const std::string& name) {
  monitor::ThreadSample s;
  s.pid = pid;
  s.tid = tid;
  s.name = name;
  s.cpu = 0;
  return s;
}

// Shell 100 with child 300 (threads 300 and "kid-0" 301), which ends before the last sample.
monitor::WatchHistory family() {
  monitor::WatchHistory h(100, /*follow=*/true);
  h.add({0.0,
         {thread_of(100, 100, "sh"), thread_of(300, 300, "probe"), thread_of(300, 301, "kid-0")}},
        {{100, 1, "sh", "/bin/sh"}, {300, 100, "probe", "/opt/probe"}});
  h.add({0.5, {thread_of(100, 100, "sh")}}, {{100, 1, "sh", "/bin/sh"}});
  return h;
}

// The timeline's time axis ticks at round times: a 1.406 s watch gets 0, 200, 400 ... ms, not
// tenths of the span (141, 281, 422 ms).
TEST(WatchTimeline, TicksFallOnRoundTimes) {
  EXPECT_DOUBLE_EQ(tick_step(1.406), 0.2);
  EXPECT_DOUBLE_EQ(tick_step(10), 2);
  EXPECT_DOUBLE_EQ(tick_step(0.05), 0.01);
  EXPECT_DOUBLE_EQ(tick_step(3.7), 0.5);
  for (double span : {0.013, 0.7, 1.406, 9.99, 61.0, 3600.0}) {
    const int ticks = static_cast<int>(span / tick_step(span)) + 1;
    EXPECT_GE(ticks, 4) << span;
    EXPECT_LE(ticks, 9) << span;
  }
  EXPECT_EQ(tick_step(0), 0);
}

TEST(WatchFollowView, LiveTableLabelsEachThreadWithItsProcess) {
  monitor::WatchHistory h(100, true);
  h.add({0.0, {thread_of(100, 100, "sh"), thread_of(300, 301, "kid-0")}},
        {{100, 1, "sh", "/bin/sh"}, {300, 100, "probe", "/opt/probe"}});
  std::string text = watch_live_table(h, 40);
  EXPECT_NE(text.find("process 100 and its descendants: 2 processes"), std::string::npos) << text;
  EXPECT_NE(text.find("pid  process"), std::string::npos) << text;
  EXPECT_NE(text.find("300  probe"), std::string::npos) << text;
}

TEST(WatchFollowView, SummaryGroupsThreadsUnderTheirProcess) {
  monitor::WatchHistory h = family();
  auto s = monitor::summarize_watch(h, {}, monitor::CounterSource::perf, false, "no PMU");
  std::string text = watch_summary_text(s);
  const auto shell = text.find("process 100 sh (/bin/sh), parent 1");
  const auto child = text.find(
      "process 300 probe (/opt/probe), parent 100, seen 0.00-0.00 s, "
      "exited: 2 threads");
  const auto kid = text.find("kid-0");
  ASSERT_NE(shell, std::string::npos) << text;
  ASSERT_NE(child, std::string::npos) << text;
  EXPECT_LT(shell, child);
  EXPECT_LT(child, kid);  // the child's thread is listed under it
  EXPECT_EQ(text.find("warning"), std::string::npos);
  s.processes_not_followed = 7;
  s.max_processes = 4096;
  EXPECT_NE(watch_summary_text(s).find("warning: 7 more processes were found after 4096"),
            std::string::npos);
}

TEST(WatchFollowView, JsonCarriesEachThreadsProcessAndTheProcessList) {
  monitor::WatchHistory h = family();
  auto s = monitor::summarize_watch(h, {}, monitor::CounterSource::perf, false, "");
  s.max_processes = 4096;
  nlohmann::json doc = watch_json(s, h);
  EXPECT_EQ(doc["follow"], true);
  ASSERT_EQ(doc["threads"].size(), 3u);
  EXPECT_EQ(doc["threads"][2]["name"], "kid-0");
  EXPECT_EQ(doc["threads"][2]["pid"], 300);
  EXPECT_EQ(doc["threads"][2]["comm"], "probe");
  ASSERT_EQ(doc["processes"].size(), 2u);
  const auto& p = doc["processes"][1];
  EXPECT_EQ(p["pid"], 300);
  EXPECT_EQ(p["ppid"], 100);
  EXPECT_EQ(p["comm"], "probe");
  EXPECT_EQ(p["exe"], "/opt/probe");
  EXPECT_EQ(p["exited"], true);
  EXPECT_EQ(p["threads"], 2);
  EXPECT_DOUBLE_EQ(p["first_s"].get<double>(), 0.0);
  EXPECT_EQ(doc["processes_not_followed"], 0);
}

// Without --follow no key of a followed watch appears (pid and comm per thread, processes, ...);
// the thread counts and each thread's identity are in every watch document.
TEST(WatchFollowView, WithoutFollowTheJsonKeysAreTheOldOnes) {
  monitor::WatchHistory h(100);
  h.add({0.0, {thread_of(0, 100, "app")}});
  auto s = monitor::summarize_watch(h, {}, monitor::CounterSource::perf, false, "");
  nlohmann::json doc = watch_json(s, h);
  std::vector<std::string> keys;
  for (const auto& [key, value] : doc.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"counter_source", "duration_s", "hardware_counters",
                                            "migrations_per_s", "numa_pages", "peak_threads", "pid",
                                            "samples", "schema", "threads", "threads_at_start",
                                            "threads_started", "total_migrations"}));
  std::vector<std::string> thread_keys;
  for (const auto& [key, value] : doc["threads"][0].items()) thread_keys.push_back(key);
  EXPECT_EQ(thread_keys,
            (std::vector<std::string>{
                "context_switches", "context_switches_per_s", "cpu_time_ms", "cpus_visited",
                "first_s", "hardware", "main_thread", "migrations", "migrations_per_s", "name",
                "samples", "seconds_seen", "spans", "started_while_watched", "tid", "tid_reused"}));
}

}  // namespace
}  // namespace threadmap::render
