// `run --thread-cache --stats` as text: the counts a user acts on (served from the cache, the
// retirement causes, the processes that created threads), said to be the cache's own counts, a
// share never rounded up to 100%, and a process name that cannot repaint the terminal.
#include "src/render/cache_stats_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace threadmap::render {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CacheStatsText, OneProcessShowsItsSharesAndCausesMostFirst) {
  auto summary = apply::summarize_cache_stats(
      "tm-cache-stats/1 pid=1234 ppid=1200 comm=java from-cache=1994 from-system=6 bypassed=0 "
      "retired.idle-timeout=2 retired.syscall-160=1 retired.fork=5\n");
  std::string text = cache_stats_text(summary);
  EXPECT_TRUE(has(text,
                  "1 process, 2000 thread creates: 1994 served from the cache (99.7%), 6 "
                  "new threads, 0 handed to glibc (counted by the cache in each process)"))
      << text;
  EXPECT_TRUE(has(text, "threads retired: fork 5, idle-timeout 2, syscall-160 1")) << text;
  EXPECT_FALSE(has(text, "pid 1234")) << text;  // one process: no per-process lines
  // Every line is ours, prefixed: it goes to stderr beside the program's own lines.
  std::size_t start = 0;
  while (start < text.size()) {
    EXPECT_EQ(text.compare(start, 11, "threadmap: "), 0) << text;
    start = text.find('\n', start) + 1;
  }
}

TEST(CacheStatsText, AProcessWithoutItsLastUpdateIsSaid) {
  auto summary = apply::summarize_cache_stats(
      "tm-cache-stats/1 pid=7 comm=go from-cache=1785 from-system=5 bypassed=0 final=0 pad=00\n");
  std::string text = cache_stats_text(summary);
  EXPECT_TRUE(has(text, "1 process ended without a last update")) << text;
  EXPECT_TRUE(has(text, "counted as of its last update")) << text;
  auto whole = apply::summarize_cache_stats(
      "tm-cache-stats/1 pid=7 comm=go from-cache=1785 from-system=5 bypassed=0 final=1\n");
  EXPECT_FALSE(has(cache_stats_text(whole), "last update"));
}

TEST(CacheStatsText, AShareIsRoundedDownNeverUpTo100) {
  auto summary = apply::summarize_cache_stats(
      "tm-cache-stats/1 pid=1 comm=a from-cache=19999 from-system=1 bypassed=0\n");
  std::string text = cache_stats_text(summary);
  EXPECT_TRUE(has(text, "(99.9%)")) << text;
  EXPECT_TRUE(has(text, "threads retired: none")) << text;
}

TEST(CacheStatsText, SeveralProcessesGetALineEachThatCreatedThreads) {
  std::string file;
  file += "tm-cache-stats/1 pid=20 ppid=10 comm=true from-cache=0 from-system=0 bypassed=0\n";
  file += "tm-cache-stats/1 pid=21 ppid=10 comm=true from-cache=0 from-system=0 bypassed=0\n";
  file +=
      "tm-cache-stats/1 pid=30 ppid=10 comm=node from-cache=0 from-system=25 bypassed=1 "
      "retired.fork=20\n";
  file += "tm-cache-stats/1 pid=10 ppid=1 comm=python3 from-cache=996 from-system=4 bypassed=0\n";
  std::string text = cache_stats_text(apply::summarize_cache_stats(file));
  EXPECT_TRUE(has(text, "4 processes, 1026 thread creates: 996 served from the cache (97.0%)"))
      << text;
  EXPECT_TRUE(has(text, "pid 30 node: 26 creates, 0.0% from the cache")) << text;
  EXPECT_TRUE(has(text, "pid 10 python3: 1000 creates, 99.6% from the cache")) << text;
  EXPECT_TRUE(has(text, "2 processes created no thread")) << text;
  EXPECT_FALSE(has(text, "pid 20")) << text;
}

TEST(CacheStatsText, ProcessRowsAreBoundedAndTheRestCounted) {
  std::string file;
  for (int pid = 100; pid < 105; ++pid)
    file += "tm-cache-stats/1 pid=" + std::to_string(pid) +
            " comm=w from-cache=1 from-system=1 bypassed=0\n";
  std::string text = cache_stats_text(apply::summarize_cache_stats(file), 2);
  EXPECT_TRUE(has(text, "pid 100 w")) << text;
  EXPECT_TRUE(has(text, "pid 101 w")) << text;
  EXPECT_FALSE(has(text, "pid 102 w")) << text;
  EXPECT_TRUE(has(text, "and 3 more processes that created threads")) << text;
}

TEST(CacheStatsText, NoLinesAndUnreadLinesAreSaid) {
  std::string none = cache_stats_text(apply::summarize_cache_stats(""));
  EXPECT_TRUE(has(none, "no process wrote statistics")) << none;
  std::string damaged = cache_stats_text(apply::summarize_cache_stats(
      "tm-cache-stats/1 pid=1 comm=a from-cache=1 from-system=1 bypassed=0\nnot a line\n"));
  EXPECT_TRUE(has(damaged, "1 line of the statistics file left out: damaged or cut short"))
      << damaged;
}

TEST(CacheStatsText, AProcessNameCannotRepaintTheTerminal) {
  std::string text = cache_stats_text(apply::summarize_cache_stats(
      "tm-cache-stats/1 pid=1 comm=\x1b[2J from-cache=1 from-system=1 bypassed=0\n"
      "tm-cache-stats/1 pid=2 comm=b from-cache=1 from-system=1 bypassed=0\n"));
  EXPECT_FALSE(has(text, "\x1b")) << text;
  EXPECT_TRUE(has(text, "pid 1 \\x1b[2J")) << text;
}

}  // namespace
}  // namespace threadmap::render
