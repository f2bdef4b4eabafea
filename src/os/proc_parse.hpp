// Pure parsers of the procfs text the kernel writes for a task (/proc/PID/task/TID/{stat,status,
// sched}). No I/O here: they are unit-tested on recorded text, and the readers in procfs.hpp
// hand them what they read.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace threadmap::os {

/// The fields of /proc/.../stat we use (man 5 proc numbers them from 1).
struct TaskStat {
  pid_t tid = 0;                   ///< field 1
  std::string comm;                ///< field 2, without the parentheses (may hold ' ' and ')')
  char state = '?';                ///< field 3: R, S, D, Z, ...
  pid_t ppid = 0;                  ///< field 4: the parent process (its pid, the tgid)
  std::uint64_t user_ticks = 0;    ///< field 14, utime, clock ticks
  std::uint64_t system_ticks = 0;  ///< field 15, stime, clock ticks
  int last_cpu = -1;               ///< field 39, processor: the CPU it last ran on
};
/// Parses a stat line. Fields after comm are counted from the LAST ')', since comm may contain
/// parentheses. Empty when the text is truncated before field 39.
std::optional<TaskStat> parse_task_stat(std::string_view text);
/// Field 39 alone, without allocating (the sampler reads it thousands of times a second); -1
/// when absent.
int parse_task_stat_cpu(std::string_view text);
/// Field 22 alone (starttime: clock ticks after boot when the thread started); 0 when absent.
/// With the tid it names one thread for good: a tid the kernel hands out again after the
/// thread exited comes with a later start time.
std::uint64_t parse_task_stat_start_ticks(std::string_view text);

/// /proc/.../schedstat: "RUN_NS WAIT_NS TIMESLICES" (time on a CPU, time runnable on a run
/// queue waiting for one, and how many times it ran). Empty when the text is not that.
struct SchedStat {
  std::uint64_t run_ns = 0;
  std::uint64_t wait_ns = 0;
};
std::optional<SchedStat> parse_schedstat(std::string_view text);

/// /proc/PID/task/TID/children: the pids of the thread's children, separated by spaces. Tokens
/// that are not positive numbers are skipped (the kernel writes none).
std::vector<pid_t> parse_children_list(std::string_view text);

/// The fields of /proc/.../status we use; absent keys stay empty.
struct TaskStatus {
  std::string name;               ///< Name: (escaped by the kernel: "\n" as "\\n")
  std::string cpus_allowed_list;  ///< Cpus_allowed_list: kernel list syntax
  std::string mems_allowed_list;  ///< Mems_allowed_list: NUMA nodes
  std::optional<std::uint64_t> voluntary_switches;    ///< voluntary_ctxt_switches
  std::optional<std::uint64_t> involuntary_switches;  ///< nonvoluntary_ctxt_switches
  std::optional<long> threads;                        ///< Threads: (process-wide)
  std::optional<pid_t> thread_group;                  ///< Tgid: the process a thread is in
};
TaskStatus parse_task_status(std::string_view text);

/// The fields of /proc/.../sched we use (needs CONFIG_SCHED_DEBUG; absent keys stay empty).
struct TaskSched {
  std::optional<std::uint64_t> migrations;  ///< se.nr_migrations
  std::optional<std::uint64_t> switches;    ///< nr_switches
  std::optional<std::uint64_t> runtime_ns;  ///< se.sum_exec_runtime (printed in ms, x.yyyyyy)
};
TaskSched parse_task_sched(std::string_view text);

/// The value of `name` in /proc/PID/environ's text (NAME=VALUE entries, each ended by a NUL):
/// the environment the process started with. nullopt when it is not there.
std::optional<std::string> parse_environ_value(std::string_view environ, std::string_view name);

}  // namespace threadmap::os
