// What `threadmap watch` accumulates: each thread's CPU over time (as spans between samples)
// and its counters, and the summary computed from them (migrations/s, CPUs visited, share of
// samples on the planned CPU).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/core/planned_thread.hpp"
#include "src/monitor/thread_sampler.hpp"
#include "src/os/numa_maps.hpp"
#include "threadmap/cpuset.hpp"

namespace threadmap::monitor {

/// A stretch of time a thread was seen on one CPU: from the sample that saw it there to the
/// next sample (so spans are as precise as the sampling interval).
/// A span is also split where the thread turns from waiting to running or back (at least
/// kActiveShare of an interval's time on a CPU), so a reader can tell runnable threads from
/// sleeping ones over time (`threadmap job` counts only runnable ones as oversubscribing).
struct CpuSpan {
  double start_s = 0;
  double end_s = 0;
  int cpu = -1;
  double cpu_s = 0;     ///< CPU time the thread used during the span (task clock)
  bool active = false;  ///< used at least kActiveShare of the span's intervals
};

/// A thread that used this share of an interval on a CPU was runnable in it; a thread asleep
/// (usleep, a barrier, a blocked read) uses well under 1%.
inline constexpr double kActiveShare = 0.10;

/// Everything recorded about one thread.
struct ThreadTrack {
  pid_t tid = 0;
  std::string name;
  bool main_thread = false;    ///< tid == pid
  double first_s = 0;          ///< first sample that saw it
  double last_s = 0;           ///< last sample that saw it
  std::vector<CpuSpan> spans;  ///< CPU over time, merged while the CPU stays the same
  std::map<int, std::uint64_t> samples_on_cpu;  ///< CPU -> samples that saw it there
  std::uint64_t samples = 0;
  SoftwareCounts counts;    ///< cumulative since first seen
  SoftwareCounts previous;  ///< at the sample before the last (for live rates)
  double previous_s = 0;
  std::optional<HardwareCounts> hardware;
};

/// The history of one watch.
class WatchHistory {
 public:
  explicit WatchHistory(pid_t pid) : pid_(pid) {}
  /// Adds a sample; threads are kept (in first-seen order) after they exit.
  void add(const ProcessSample& sample);
  /// Threads in the order they were first seen (the main thread first).
  const std::vector<ThreadTrack>& threads() const { return threads_; }
  pid_t pid() const { return pid_; }
  double first_s() const { return first_s_; }
  double last_s() const { return last_s_; }
  std::uint64_t samples() const { return samples_; }

 private:
  pid_t pid_;
  std::vector<ThreadTrack> threads_;
  std::map<pid_t, size_t> index_;
  double first_s_ = 0;
  double last_s_ = 0;
  std::uint64_t samples_ = 0;
};

using threadmap::PlannedThread;  // a plan's entry (src/core/planned_thread.hpp)

/// Which thread gets which plan entry: "main" -> the main thread; with `by_name` each entry ->
/// threads whose name equals it (first 15 characters); otherwise the other entries go, in
/// order, to the non-main threads in the order they were first seen (= creation order when
/// the watch started with the program). Returns one optional set per track.
std::vector<std::optional<CpuSet>> match_plan(const WatchHistory& history,
                                              const std::vector<PlannedThread>& plan, bool by_name);

/// Summary of one thread.
struct ThreadSummary {
  pid_t tid = 0;
  std::string name;
  double seconds_seen = 0;
  std::uint64_t samples = 0;
  CpuSet cpus_visited;           ///< CPUs it was seen on at a sample
  std::uint64_t migrations = 0;  ///< counter delta over the watch
  double migrations_per_s = 0;
  std::uint64_t context_switches = 0;
  double switches_per_s = 0;
  double cpu_time_ms = 0;  ///< from the task clock (or sched runtime)
  std::optional<CpuSet> planned;
  std::optional<double> share_on_planned;  ///< samples on a planned CPU / samples, 0..1
  std::optional<HardwareCounts> hardware;
};

/// Summary of the whole watch.
struct WatchSummary {
  pid_t pid = 0;
  double duration_s = 0;
  std::uint64_t samples = 0;
  CounterSource source = CounterSource::perf;
  bool hardware = false;
  std::string hardware_note;  ///< why hardware counters are not supported ("" when they are)
  std::vector<ThreadSummary> threads;
  std::uint64_t total_migrations = 0;
  double migrations_per_s = 0;  ///< all threads
  /// Pages per NUMA node (/proc/PID/numa_maps) at the first reading and at the last one; the
  /// last is taken at the watch's end, or for a program that exits, at its last reading before.
  std::optional<os::NumaPages> numa_start, numa_end;
  double numa_start_s = 0, numa_end_s = 0;  ///< when they were read, seconds into the watch
  std::string numa_note;                    ///< why there is no reading ("" when there is)
  std::string numa_source;                  ///< the file read (/proc/PID/numa_maps)
};

/// Builds the summary. `planned` comes from match_plan() (or is empty).
WatchSummary summarize_watch(const WatchHistory& history,
                             const std::vector<std::optional<CpuSet>>& planned,
                             CounterSource source, bool hardware, const std::string& hardware_note);

}  // namespace threadmap::monitor
