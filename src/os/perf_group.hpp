// perf_event_open groups: several counters of one thread opened together and read with one
// read(2) (PERF_FORMAT_GROUP). Machines without a PMU (most VMs) or with perf_event_paranoid
// high refuse some or all events: "no counters" is a value with its reason, never an abort.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "threadmap/result.hpp"

namespace threadmap::os {

/// Kinds of events, mapped to perf types and configs inside perf_group.cpp.
enum class PerfEvent {
  task_clock,        ///< software: CPU time, ns
  cpu_migrations,    ///< software
  context_switches,  ///< software
  cycles,            ///< hardware
  instructions,      ///< hardware
  l1d_read_misses,   ///< hardware cache
  llc_misses,        ///< hardware
  dtlb_read_misses,  ///< hardware cache
};

/// True for the events that need a PMU.
bool is_hardware_event(PerfEvent event);

/// One thread's group of counters. Move-only; closes its descriptors.
class PerfGroup {
 public:
  PerfGroup() = default;
  ~PerfGroup();
  PerfGroup(PerfGroup&& other) noexcept;
  PerfGroup& operator=(PerfGroup&& other) noexcept;
  PerfGroup(const PerfGroup&) = delete;
  PerfGroup& operator=(const PerfGroup&) = delete;

  /// Opens `events` (the first leads) for thread `tid` (0 = the calling thread), counting from
  /// now, on any CPU. Kernel-side counts are included for software events (a context switch
  /// happens in the kernel) and excluded for hardware ones. EINTR is retried a bounded number of
  /// times. Fails with perf_event_open's errno (EACCES/EPERM: perf_event_paranoid; ENOENT or
  /// EOPNOTSUPP: no PMU; ESRCH: thread gone) with every descriptor already closed.
  static Result<PerfGroup> open(pid_t tid, const std::vector<PerfEvent>& events);

  /// Current counts, in the order the events were given. Fails (EIO/errno) when the thread's
  /// counters can no longer be read.
  Result<std::vector<std::uint64_t>> read() const;
  bool is_open() const { return !fds_.empty(); }

 private:
  std::vector<int> fds_;
  void close_all();
};

/// Whether this process can count hardware events (probed once). When not, the reason, e.g.
/// "no hardware counters (perf_event_open cycles: No such file or directory)".
bool hardware_counters_available(std::string* why);

}  // namespace threadmap::os
