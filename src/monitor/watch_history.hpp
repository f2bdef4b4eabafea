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
/// kActiveShare of an interval's time on a CPU), and where a thread that did not run turns from
/// asleep to runnable-but-starved (at least kActiveShare of the interval on a run queue,
/// waiting for a CPU) or back, so a reader can tell running, starved and sleeping threads apart
/// over time (`threadmap job` counts only running ones as oversubscribing).
struct CpuSpan {
  double start_s = 0;
  double end_s = 0;
  int cpu = -1;
  double cpu_s = 0;      ///< CPU time the thread used during the span (task clock)
  bool active = false;   ///< used at least kActiveShare of the span's intervals
  double wait_s = 0;     ///< time it waited on a run queue for a CPU (schedstat)
  bool starved = false;  ///< not active, but waited for a CPU at least kActiveShare of the time
};

/// A thread that used this share of an interval on a CPU was runnable in it; a thread asleep
/// (usleep, a barrier, a blocked read) uses well under 1%.
inline constexpr double kActiveShare = 0.10;

/// Everything recorded about one thread.
struct ThreadTrack {
  pid_t tid = 0;
  pid_t pid = 0;  ///< its process (the watched one unless following)
  std::string name;
  bool main_thread = false;       ///< tid == its process's pid: the process's first thread
  std::uint64_t start_ticks = 0;  ///< when it started (clock ticks after boot); 0 = unknown
  /// Another thread had this tid earlier in the watch and exited: the kernel reused the id.
  bool tid_reused = false;
  bool at_first_sample = false;  ///< alive at the watch's first sample of its process
  double first_s = 0;            ///< first sample that saw it
  double last_s = 0;             ///< last sample that saw it
  std::vector<CpuSpan> spans;    ///< CPU over time, merged while the CPU stays the same
  std::map<int, std::uint64_t> samples_on_cpu;  ///< CPU -> samples that saw it there
  std::uint64_t samples = 0;
  SoftwareCounts counts;    ///< cumulative since first seen
  SoftwareCounts previous;  ///< at the sample before the last (for live rates)
  double previous_s = 0;
  std::optional<HardwareCounts> hardware;
};

/// A thread's rates between its last two samples (the live table of `watch`); zero when it was
/// seen once.
struct ThreadRates {
  double cpu_percent = 0;  ///< CPU time used, % of one CPU
  double migrations_per_s = 0;
  double switches_per_s = 0;
};
ThreadRates live_rates(const ThreadTrack& track);

/// A process of a followed family (watch --follow), kept after it ends.
struct ProcessTrack {
  pid_t pid = 0;
  pid_t ppid = 0;    ///< parent at the last sample that saw it
  std::string comm;  ///< command name at the last sample (after an exec: the new program's)
  std::string exe;   ///< executable at the last sample; "" when it could not be read
  double first_s = 0;
  double last_s = 0;
};

/// The history of one watch.
class WatchHistory {
 public:
  /// `follow`: the samples hold the watched process's descendants too.
  explicit WatchHistory(pid_t pid, bool follow = false) : pid_(pid), follow_(follow) {}
  /// Adds a sample and, following, the processes alive at it (ProcessTreeSampler::processes);
  /// threads and processes are kept, in first-seen order, after they exit.
  void add(const ProcessSample& sample, const std::vector<ProcessSeen>& processes = {});
  /// Threads grouped by process (processes in the order they were found, the watched one
  /// first), within a process the main thread first, then in the order they were first seen.
  const std::vector<ThreadTrack>& threads() const { return threads_; }
  /// Processes followed, in the order they were found (empty unless following).
  const std::vector<ProcessTrack>& processes() const { return processes_; }
  bool follow() const { return follow_; }
  pid_t pid() const { return pid_; }
  double first_s() const { return first_s_; }
  double last_s() const { return last_s_; }
  std::uint64_t samples() const { return samples_; }
  /// Most threads seen alive at one sample (all processes followed together).
  std::size_t peak_threads() const { return peak_threads_; }

 private:
  size_t process_rank(pid_t pid) const;
  void note_processes(const std::vector<ProcessSeen>& processes, double time_s);
  /// The track of a sampled thread, made (and `added` set) when it is new or its tid reused.
  ThreadTrack& track_of(const ThreadSample& s, std::map<pid_t, bool>& new_process, double time_s,
                        bool& added);
  void order_tracks();

  pid_t pid_;
  bool follow_ = false;
  std::vector<ThreadTrack> threads_;
  std::map<pid_t, size_t> index_;
  std::vector<ProcessTrack> processes_;
  std::map<pid_t, size_t> process_index_;
  double first_s_ = 0;
  double last_s_ = 0;
  std::uint64_t samples_ = 0;
  std::size_t peak_threads_ = 0;
  std::map<pid_t, double> process_first_s_;  ///< each process's first sample (any thread seen)
};

using threadmap::PlannedThread;  // a plan's entry (src/core/planned_thread.hpp)

/// Which thread gets which plan entry (only the watched process's threads, when following):
/// "main" -> the main thread; with `by_name` each entry ->
/// threads whose name equals it (first 15 characters); otherwise the other entries go, in
/// order, to the non-main threads in the order they were first seen (= creation order when
/// the watch started with the program). Returns one optional set per track.
std::vector<std::optional<CpuSet>> match_plan(const WatchHistory& history,
                                              const std::vector<PlannedThread>& plan, bool by_name);

/// Summary of one thread.
struct ThreadSummary {
  pid_t tid = 0;
  pid_t pid = 0;  ///< its process
  std::string name;
  bool main_thread = false;            ///< the process's first thread (tid == pid)
  bool tid_reused = false;             ///< its tid belonged to another thread earlier in the watch
  bool started_while_watched = false;  ///< not there at its process's first sample
  double first_s = 0;                  ///< seconds into the watch it was first seen
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

/// Summary of one followed process (watch --follow).
struct ProcessSummary {
  pid_t pid = 0;
  pid_t ppid = 0;
  std::string comm;
  std::string exe;
  double first_s = 0;  ///< seconds into the watch
  double last_s = 0;
  bool ended = false;  ///< not seen at the last sample: it exited during the watch
  size_t threads = 0;  ///< threads seen in all
};

/// Summary of the whole watch.
struct WatchSummary {
  pid_t pid = 0;
  bool follow = false;  ///< descendants followed (watch --follow): `processes` says which
  std::vector<ProcessSummary> processes;     ///< in the order found, the watched one first
  std::uint64_t processes_not_followed = 0;  ///< found past `max_processes`: not sampled
  size_t max_processes = 0;                  ///< the bound on followed processes
  double duration_s = 0;
  std::uint64_t samples = 0;
  CounterSource source = CounterSource::perf;
  bool hardware = false;
  std::string hardware_note;  ///< why hardware counters are not supported ("" when they are)
  std::vector<ThreadSummary> threads;
  /// Threads the process (all of them, following) had at the first sample, threads that
  /// appeared later (new thread ids the kernel listed under /proc/PID/task, a reused id
  /// counted again), and the most alive at one sample. Threads that started and ended between
  /// two samples are not seen: threads_started is a lower bound.
  std::size_t threads_at_start = 0;
  std::size_t threads_started = 0;
  std::size_t peak_threads = 0;
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
