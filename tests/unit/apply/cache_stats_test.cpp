// The thread cache's statistics file read back (`run --thread-cache --stats`): lines in the
// tm-cache-stats/1 format of docs/thread-cache.md, summed over a process tree. The expected
// figures are the lines' own values, added by hand; keys a reader does not know are ignored,
// as the format asks, and a damaged or cut-short line is counted, never half-read.
#include "src/apply/cache_stats.hpp"

#include <gtest/gtest.h>

#include <string>

namespace threadmap::apply {
namespace {

// The example line of the format (docs/thread-cache.md), whole.
const std::string kJavaLine =
    "tm-cache-stats/1 pid=1234 ppid=1200 comm=java from-cache=1994 from-system=6 bypassed=0 "
    "own-exits=0 spin-met=10 spin-ran-out=2 no-spin-busy=0 no-spin-score=0 no-spin-spinners=0 "
    "no-spin-fixed=0 peak-idle=3 retired.idle-timeout=2 retired.syscall-160=1 retired.fork=1";
// A child the program started: it created no thread and retired none.
const std::string kTrueLine =
    "tm-cache-stats/1 pid=1240 ppid=1234 comm=true from-cache=0 from-system=0 bypassed=0 "
    "own-exits=0 spin-met=0 spin-ran-out=0 no-spin-busy=0 no-spin-score=0 no-spin-spinners=0 "
    "no-spin-fixed=0 peak-idle=0";

TEST(CacheStatsLine, TheFormatsExampleLineReadsWhole) {
  auto line = parse_cache_stats_line(kJavaLine);
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->pid, 1234);
  EXPECT_EQ(line->ppid, 1200);
  EXPECT_EQ(line->comm, "java");
  EXPECT_EQ(line->from_cache, 1994u);
  EXPECT_EQ(line->from_system, 6u);
  EXPECT_EQ(line->bypassed, 0u);
  EXPECT_EQ(line->creates(), 2000u);
  ASSERT_EQ(line->retired.size(), 3u);
  EXPECT_EQ(line->retired.at("idle-timeout"), 2u);
  EXPECT_EQ(line->retired.at("syscall-160"), 1u);
  EXPECT_EQ(line->retired.at("fork"), 1u);
}

TEST(CacheStatsLine, KeysOfALaterVersionAreIgnoredWhateverTheirValue) {
  auto line = parse_cache_stats_line(
      "tm-cache-stats/1 pid=7 future-key=abc from-cache=5 handoff-ns=1.5e3 from-system=1 "
      "bypassed=2 retired.prctl-38=4 retired.new-cause=1");
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->from_cache, 5u);
  EXPECT_EQ(line->from_system, 1u);
  EXPECT_EQ(line->bypassed, 2u);
  EXPECT_EQ(line->ppid, 0);   // not given
  EXPECT_EQ(line->comm, "");  // not given
  EXPECT_EQ(line->retired.at("prctl-38"), 4u);
  EXPECT_EQ(line->retired.at("new-cause"), 1u);  // a cause added later is still counted
}

TEST(CacheStatsLine, ACommWithEqualsSignsReplacedKeepsItsText) {
  // The cache replaces spaces and '=' with '_'; anything else is the process's own name.
  auto line = parse_cache_stats_line(
      "tm-cache-stats/1 pid=9 comm=Web_Content:1 from-cache=0 from-system=0 bypassed=0");
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->comm, "Web_Content:1");
}

TEST(CacheStatsLine, ARetirementOfZeroThreadsIsLeftOut) {
  auto line = parse_cache_stats_line(
      "tm-cache-stats/1 pid=9 from-cache=1 from-system=1 bypassed=0 retired.fork=0");
  ASSERT_TRUE(line.has_value());
  EXPECT_TRUE(line->retired.empty());
}

TEST(CacheStatsLine, ALiveRecordReadsWithItsPaddingAndFinalFlag) {
  // The record a process keeps current in place: zero-padded numbers are decimal, pad= is a key
  // the reader does not know, final=0 says the process ended without its last update.
  auto line = parse_cache_stats_line(
      "tm-cache-stats/1 pid=00042 ppid=0007 comm=go_spawn_cgo from-cache=0001952 "
      "from-system=000005 bypassed=0 retired.fork=0003 final=0 pad=0000000000000000");
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->pid, 42);
  EXPECT_EQ(line->ppid, 7);
  EXPECT_EQ(line->from_cache, 1952u);
  EXPECT_EQ(line->from_system, 5u);
  EXPECT_EQ(line->retired.at("fork"), 3u);
  EXPECT_FALSE(line->final);
  auto done = parse_cache_stats_line(
      "tm-cache-stats/1 pid=42 from-cache=1 from-system=1 bypassed=0 final=1 pad=0");
  ASSERT_TRUE(done.has_value());
  EXPECT_TRUE(done->final);
  // Older libraries wrote no final key: their line was written at a normal end.
  auto old =
      parse_cache_stats_line("tm-cache-stats/1 pid=42 from-cache=1 from-system=1 bypassed=0");
  ASSERT_TRUE(old.has_value());
  EXPECT_TRUE(old->final);
}

TEST(CacheStatsLine, DamagedLinesAreNotRead) {
  const char* damaged[] = {
      "",                                                                   // empty
      "thread cache stats: creates from-cache=1 from-system=2 bypassed=0",  // the stderr line
      "tm-cache-stats/2 pid=1 from-cache=1 from-system=2 bypassed=0",       // another version
      "tm-cache-stats/1pid=1 from-cache=1 from-system=2 bypassed=0",        // no space after tag
      "tm-cache-stats/1 pid=1 from-cache=x from-system=2 bypassed=0",       // not a number
      "tm-cache-stats/1 pid=1 from-cache=-1 from-system=2 bypassed=0",      // signed
      "tm-cache-stats/1 pid=1 from-cache=1 from-system=2 bypassed=0 retired.=3",  // no cause
      "tm-cache-stats/1 pid=1 from-cache=1 from-system=2 bypassed=0 fork",        // no '='
      "tm-cache-stats/1 pid=1 from-cache=1  from-system=2 bypassed=0",            // two spaces
      "tm-cache-stats/1 pid=1 from-cache=99999999999999999999 from-system=2 bypassed=0",
      "tm-cache-stats/1 from-cache=1 from-system=2 bypassed=0",                // no pid
      "tm-cache-stats/1 pid=1 from-cache=1 from-system=2",                     // no bypassed
      "tm-cache-stats/1 pid=1234 ppid=1200 comm=java from-cache=19",           // cut mid-line
      "tm-cache-stats/1 pid=1 from-cache=1 from-system=2 bypassed=0 final=2",  // not a flag
      "tm-cache-stats/1 pid=1 from-cache=1 from-system=2 bypassed=0 final=",   // no flag
      // A record cut between its pages while rewritten: its tag says so until restored.
      "tm-cache-stats/- pid=1 from-cache=1 from-system=2 bypassed=0 final=0 pad=00",
  };
  for (const char* line : damaged)
    EXPECT_FALSE(parse_cache_stats_line(line).has_value()) << "read: '" << line << "'";
}

TEST(CacheStatsSummary, ATreeOfProcessesIsSummed) {
  const std::string python =
      "tm-cache-stats/1 pid=1300 ppid=1234 comm=python3 from-cache=798 from-system=202 "
      "bypassed=0 retired.fork=200 retired.idle-timeout=1";
  auto summary = summarize_cache_stats(kTrueLine + "\n" + python + "\n" + kJavaLine + "\n");
  ASSERT_EQ(summary.processes.size(), 3u);
  EXPECT_EQ(summary.processes[0].comm, "true");  // the file's order: the order they ended
  EXPECT_EQ(summary.processes[2].comm, "java");
  EXPECT_EQ(summary.from_cache, 1994u + 798u);
  EXPECT_EQ(summary.from_system, 6u + 202u);
  EXPECT_EQ(summary.bypassed, 0u);
  EXPECT_EQ(summary.creates(), 3000u);
  ASSERT_TRUE(summary.reuse().has_value());
  EXPECT_DOUBLE_EQ(*summary.reuse(), 2792.0 / 3000.0);
  EXPECT_EQ(summary.unread_lines, 0);
  // Most threads first; equal counts by cause name.
  ASSERT_EQ(summary.retired.size(), 3u);
  EXPECT_EQ(summary.retired[0].cause, "fork");
  EXPECT_EQ(summary.retired[0].threads, 201u);
  EXPECT_EQ(summary.retired[1].cause, "idle-timeout");
  EXPECT_EQ(summary.retired[1].threads, 3u);
  EXPECT_EQ(summary.retired[2].cause, "syscall-160");
  EXPECT_EQ(summary.retired[2].threads, 1u);
}

TEST(CacheStatsSummary, DamagedAndCutShortLinesAreCountedAndLeftOut) {
  // A damaged line between two good ones, blank lines, and a last line without its newline
  // (the cache writes each line whole, newline included: this one was cut short).
  const std::string text = kJavaLine + "\n\ngarbage that is not a line\n" + kTrueLine +
                           "\n\ntm-cache-stats/1 pid=1250 ppid=1234 comm=sh from-cache=7 "
                           "from-system=1 bypassed=0";
  auto summary = summarize_cache_stats(text);
  ASSERT_EQ(summary.processes.size(), 2u);
  EXPECT_EQ(summary.unread_lines, 2);
  EXPECT_EQ(summary.from_cache, 1994u);
  EXPECT_EQ(summary.creates(), 2000u);
}

TEST(CacheStatsSummary, RecordsWithoutTheirLastUpdateAreCountedAndSummed) {
  const std::string go =
      "tm-cache-stats/1 pid=1400 ppid=1234 comm=go from-cache=0001785 from-system=000005 "
      "bypassed=0 final=0 pad=00000000";
  auto summary = summarize_cache_stats(kJavaLine + "\n" + go + "\n" + kTrueLine + "\n");
  ASSERT_EQ(summary.processes.size(), 3u);
  EXPECT_EQ(summary.unfinished, 1);
  EXPECT_EQ(summary.from_cache, 1994u + 1785u);
  EXPECT_EQ(summary.unread_lines, 0);
}

TEST(CacheStatsSummary, AnEmptyFileHasNoProcessesAndNoReuse) {
  auto summary = summarize_cache_stats("");
  EXPECT_TRUE(summary.processes.empty());
  EXPECT_EQ(summary.unread_lines, 0);
  EXPECT_FALSE(summary.reuse().has_value());
  auto idle = summarize_cache_stats(kTrueLine + "\n");
  EXPECT_EQ(idle.processes.size(), 1u);
  EXPECT_FALSE(idle.reuse().has_value());  // a process that created nothing: no share to give
}

TEST(CacheStatsSummary, SumsNeverWrap) {
  const std::string big =
      "tm-cache-stats/1 pid=1 from-cache=18446744073709551615 from-system=1 bypassed=0\n";
  auto summary = summarize_cache_stats(big + big);
  EXPECT_EQ(summary.from_cache, 18446744073709551615u);
  EXPECT_EQ(summary.creates(), 18446744073709551615u);
}

}  // namespace
}  // namespace threadmap::apply

namespace threadmap::apply {
namespace {

// `watch PID` of a process under the cache: only the watched processes' records count, and a
// live record of a process still running is "running", not "ended without a last update".
TEST(CacheStatsOf, OnlyTheWatchedProcessesAndTheirLiveRecords) {
  const std::string text =
      "tm-cache-stats/1 pid=10 from-cache=90 from-system=10 bypassed=0 final=0 pad=000\n"
      "tm-cache-stats/1 pid=11 from-cache=5 from-system=5 bypassed=0 final=1\n"
      "tm-cache-stats/1 pid=99 from-cache=1000 from-system=1 bypassed=0 final=0\n";
  CacheStatsSummary s = summarize_cache_stats_of(text, {10, 11}, {10});
  ASSERT_EQ(s.processes.size(), 2u);
  EXPECT_EQ(s.from_cache, 95u);
  EXPECT_EQ(s.creates(), 110u);
  EXPECT_EQ(s.running, 1);
  EXPECT_EQ(s.unfinished, 0);
  // The same record when its process is gone: it ended without its last update.
  CacheStatsSummary gone = summarize_cache_stats_of(text, {10}, {});
  EXPECT_EQ(gone.running, 0);
  EXPECT_EQ(gone.unfinished, 1);
  EXPECT_TRUE(summarize_cache_stats_of(text, {}, {}).processes.empty());
}

}  // namespace
}  // namespace threadmap::apply
