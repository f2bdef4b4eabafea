// Sampling the threads of a process: where each runs (procfs), how often it migrated and
// switched, and how much CPU it used (perf software counters; /proc/.../sched when perf is not
// allowed), plus hardware counters where the machine has them.
//
// Cost is what matters when watching thousands of threads at 10 Hz: every thread keeps its
// descriptors open between samples (pread on an open /proc stat file regenerates it), counters
// are read as a group with one read(2), and the stat file is only read again when the
// migration counter moved (a thread that did not migrate is still on the same CPU).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/monitor/thread_counters.hpp"
#include "threadmap/result.hpp"

namespace threadmap::monitor {

/// One thread at one sample. Counts are cumulative since the sampler first saw the thread.
struct ThreadSample {
  pid_t tid = 0;
  std::string name;
  int cpu = -1;                            ///< CPU it last ran on (/proc stat field 39)
  SoftwareCounts counts;                   ///< since first seen
  std::optional<HardwareCounts> hardware;  ///< since first seen; empty = not supported
  pid_t pid = 0;                           ///< its process; 0 = the sampled process
  /// When the thread started (/proc stat field 22, clock ticks after boot); 0 when unknown. A
  /// tid seen again with another start time is another thread: the kernel reused the id.
  std::uint64_t start_ticks = 0;
};

/// A process of a followed family, as seen at one sample (watch --follow).
struct ProcessSeen {
  pid_t pid = 0;
  pid_t ppid = 0;
  std::string comm;  ///< command name now (changes at exec)
  std::string exe;   ///< executable now; "" when it cannot be read (another user's, a kernel's)
};

/// All threads of the process at one instant.
struct ProcessSample {
  double time_s = 0;                  ///< seconds since the sampler was created (CLOCK_MONOTONIC)
  std::vector<ThreadSample> threads;  ///< ascending tid (followed: by process, then tid)
};

/// Options for a sampler.
struct SamplerOptions {
  bool hardware = true;  ///< try hardware counters (silently none where unsupported)
  bool use_perf = true;  ///< false forces the procfs fallback (tests, comparisons)
  /// Read each thread's run-queue wait (/proc/.../schedstat) at every sample: one more read per
  /// thread, which also notices a thread that exited while another started (the task count
  /// unchanged: its perf counters still read). false leaves SoftwareCounts::wait_ns at 0 and
  /// such a thread listed until the next change of the count (the overhead benchmark compares).
  bool run_queue_wait = true;
};

class ThreadSampler {
 public:
  /// Watches process `pid`. Nothing is opened until the first sample().
  explicit ThreadSampler(pid_t pid, SamplerOptions options = {});
  ~ThreadSampler();
  ThreadSampler(const ThreadSampler&) = delete;
  ThreadSampler& operator=(const ThreadSampler&) = delete;

  /// Takes a sample. Threads that appeared are opened, threads that exited are dropped.
  /// Fails with ESRCH once the process has exited (or is a zombie with no threads left).
  Result<ProcessSample> sample();

  /// Source of the counts (decided at the first thread opened).
  CounterSource source() const;
  /// True when at least one thread got hardware counters.
  bool hardware_counters() const;
  pid_t pid() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace threadmap::monitor
