// The procfs parsers on text recorded from a Linux 6.1 kernel (Debian 12), with field numbers as
// man 5 proc gives them. The process was a copy of sleep(1) named "we ird) (x", so comm holds a
// space and both parentheses, as a hostile thread name can.
#include "src/os/proc_parse.hpp"

#include <gtest/gtest.h>

namespace threadmap::os {
namespace {

// utime (14) and stime (15) were 0 in the recording; the second line has them set to check the
// field count, processor (39) = 1.
constexpr const char* kStat =
    "7858 (we ird) (x) S 7812 7812 1465 0 -1 4194304 138 0 0 0 0 0 0 0 20 0 1 0 187073 2990080 "
    "364 18446744073709551615 94688365436928 94688365454857 140736454940496 0 0 0 0 6 0 1 0 0 "
    "17 1 0 0 0 0 0 94688365468944 94688365470208 94689145602048 140736454945463 "
    "140736454945481 140736454945481 140736454946792 0\n";
constexpr const char* kStatTicks =
    "42 (worker 3) R 1 1 1 0 -1 4194304 138 0 0 0 250 17 0 0 20 0 1 0 187073 2990080 "
    "364 18446744073709551615 1 1 1 0 0 0 0 6 0 1 0 0 17 5 0 0 0 0 0\n";

TEST(ParseTaskStat, FieldsCountedFromTheLastParenthesis) {
  auto st = parse_task_stat(kStat);
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->tid, 7858);
  EXPECT_EQ(st->comm, "we ird) (x");
  EXPECT_EQ(st->state, 'S');
  EXPECT_EQ(st->ppid, 7812);  // field 4, after a comm holding ") ("
  EXPECT_EQ(st->last_cpu, 1);
  EXPECT_EQ(parse_task_stat_cpu(kStat), 1);
}

// Field 22, starttime: with the tid it names one thread (a reused tid starts later).
TEST(ParseTaskStat, StartTicksAreFieldTwentyTwo) {
  EXPECT_EQ(parse_task_stat_start_ticks(kStat), 187073u);
  EXPECT_EQ(parse_task_stat_start_ticks("12 (x) S 1 2 3"), 0u);
}

// /proc/PID/task/TID/schedstat as Linux 6.1 writes it: on-CPU ns, run-queue wait ns, slices.
TEST(ParseSchedStat, RunAndWaitNanoseconds) {
  auto st = parse_schedstat("560464848 5575913555 1136\n");
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->run_ns, 560464848u);
  EXPECT_EQ(st->wait_ns, 5575913555u);
  EXPECT_FALSE(parse_schedstat("").has_value());
  EXPECT_FALSE(parse_schedstat("garbage").has_value());
}

// /proc/PID/task/TID/children as the kernel writes it: "pid pid " (a space after each, no
// newline), or nothing for a thread without children.
TEST(ParseChildrenList, PidsInTheKernelsOrder) {
  EXPECT_EQ(parse_children_list("8229 8231 "), (std::vector<pid_t>{8229, 8231}));
  EXPECT_EQ(parse_children_list(""), std::vector<pid_t>{});
  EXPECT_EQ(parse_children_list("12\n"), std::vector<pid_t>{12});
  EXPECT_EQ(parse_children_list("0 x7 -3 99999999999 5"), std::vector<pid_t>{5});
}

TEST(ParseTaskStat, UserAndSystemTicks) {
  auto st = parse_task_stat(kStatTicks);
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->user_ticks, 250u);
  EXPECT_EQ(st->system_ticks, 17u);
  EXPECT_EQ(st->last_cpu, 5);
  EXPECT_EQ(st->state, 'R');
}

TEST(ParseTaskStat, TruncatedOrGarbageIsRejected) {
  EXPECT_FALSE(parse_task_stat("").has_value());
  EXPECT_FALSE(parse_task_stat("12 (x) S 1 2 3").has_value());
  EXPECT_FALSE(parse_task_stat("no parentheses at all").has_value());
  EXPECT_EQ(parse_task_stat_cpu("12 (x) S 1 2 3"), -1);
  EXPECT_EQ(parse_task_stat_cpu(""), -1);
}

constexpr const char* kStatus =
    "Name:\twe ird) (x\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t7858\nPid:\t7858\n"
    "Threads:\t1\nSigQ:\t0/96365\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n"
    "Mems_allowed_list:\t0\nvoluntary_ctxt_switches:\t1\nnonvoluntary_ctxt_switches:\t0\n";

TEST(ParseTaskStatus, NamesListsAndSwitches) {
  TaskStatus st = parse_task_status(kStatus);
  EXPECT_EQ(st.name, "we ird) (x");
  EXPECT_EQ(st.cpus_allowed_list, "0-1");
  EXPECT_EQ(st.mems_allowed_list, "0");
  EXPECT_EQ(st.voluntary_switches, 1u);
  EXPECT_EQ(st.involuntary_switches, 0u);
  EXPECT_EQ(st.threads, 1);
  EXPECT_EQ(st.thread_group, 7858);
}

TEST(ParseTaskStatus, MissingKeysStayEmpty) {
  TaskStatus st = parse_task_status("Name:\tx\n");
  EXPECT_EQ(st.name, "x");
  EXPECT_TRUE(st.cpus_allowed_list.empty());
  EXPECT_FALSE(st.voluntary_switches.has_value());
  EXPECT_FALSE(st.threads.has_value());
}

constexpr const char* kSched =
    "we ird) (x (7858, #threads: 1)\n"
    "-------------------------------------------------------------------\n"
    "se.exec_start                                :       1869677.433252\n"
    "se.vruntime                                  :        481566.102307\n"
    "se.sum_exec_runtime                          :             1.356230\n"
    "se.nr_migrations                             :                    7\n"
    "nr_switches                                  :                   11\n"
    "nr_voluntary_switches                        :                    1\n"
    "nr_involuntary_switches                      :                   10\n"
    "policy                                       :                    0\n";

TEST(ParseTaskSched, MigrationsSwitchesAndRuntimeInNs) {
  TaskSched st = parse_task_sched(kSched);
  EXPECT_EQ(st.migrations, 7u);
  EXPECT_EQ(st.switches, 11u);         // nr_switches, not nr_voluntary_switches
  EXPECT_EQ(st.runtime_ns, 1356230u);  // 1.356230 ms
}

TEST(ParseTaskSched, WithoutSchedDebugNothingIsKnown) {
  TaskSched st = parse_task_sched("");
  EXPECT_FALSE(st.migrations.has_value());
  EXPECT_FALSE(st.switches.has_value());
  EXPECT_FALSE(st.runtime_ns.has_value());
}

}  // namespace
}  // namespace threadmap::os

namespace threadmap::os {
namespace {

// environ(5) as /proc/PID/environ gives it: NAME=VALUE entries each ended by a NUL.
TEST(ProcParse, EnvironValueIsFoundByItsWholeName) {
  const std::string text("PATH=/usr/bin\0TM_CACHE_STATS_X=/no\0TM_CACHE_STATS=/tmp/s=1\0", 59);
  EXPECT_EQ(parse_environ_value(text, "TM_CACHE_STATS"), "/tmp/s=1");
  EXPECT_EQ(parse_environ_value(text, "PATH"), "/usr/bin");
  EXPECT_EQ(parse_environ_value(text, "TM_CACHE"), std::nullopt);  // a prefix is not the name
  EXPECT_EQ(parse_environ_value(std::string_view("A=", 2), "A"), "");
  EXPECT_EQ(parse_environ_value("", "A"), std::nullopt);
}

}  // namespace
}  // namespace threadmap::os
