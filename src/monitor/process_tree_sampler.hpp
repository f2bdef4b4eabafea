// Sampling a process and, with follow, its descendants: every process a followed process forks
// (and what it execs), found again at every sample by walking /proc, each sampled by its own
// ThreadSampler. What `watch --follow` sees, like `perf -p`'s and `strace -f`'s following.
// Without follow this is exactly one ThreadSampler.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "src/monitor/thread_sampler.hpp"
#include "src/os/process_tree.hpp"
#include "threadmap/result.hpp"

namespace threadmap::monitor {

/// How many processes a watch follows at most (the watched one included): each holds a few
/// descriptors per thread and its history is kept to the end, and pid_max may be 32768.
inline constexpr std::size_t kMaxFollowedProcesses = 4096;

/// What to follow.
struct FollowOptions {
  bool follow = false;                                ///< false: the one process only
  std::size_t max_processes = kMaxFollowedProcesses;  ///< processes followed at most, in all
  os::ChildLookup lookup = os::ChildLookup::automatic;
};

class ProcessTreeSampler {
 public:
  /// Watches `root` (and with follow, its descendants). Nothing is opened until sample().
  ProcessTreeSampler(pid_t root, FollowOptions follow, SamplerOptions options = {});
  ~ProcessTreeSampler();
  ProcessTreeSampler(const ProcessTreeSampler&) = delete;
  ProcessTreeSampler& operator=(const ProcessTreeSampler&) = delete;

  /// Takes a sample. With follow: children of every followed process that appeared since the
  /// last sample are added (a child orphaned by its parent's exit is already followed, so it
  /// stays), processes that ended are dropped and each thread carries its pid. Fails with
  /// ESRCH once every followed process has exited.
  Result<ProcessSample> sample();
  /// Following: the processes alive at the last sample (the root first, then in the order they
  /// were found); empty when not following.
  const std::vector<ProcessSeen>& processes() const;

  /// The weakest counter source any process's threads had (see ThreadSampler::source).
  CounterSource source() const;
  /// True when at least one thread got hardware counters.
  bool hardware_counters() const;
  /// Processes found after max_processes were followed: not sampled, counted once each.
  std::uint64_t processes_not_followed() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace threadmap::monitor
