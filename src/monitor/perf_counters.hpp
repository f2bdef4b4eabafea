// Per-thread counters from perf_event_open: software ones (task clock, CPU migrations, context
// switches) that every Linux has, and hardware ones (cycles, instructions, L1D and LLC misses)
// where the machine exposes a PMU. Virtual machines usually do not: then they are "not
// supported", said once, and the software counters still work.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "threadmap/result.hpp"

namespace threadmap::monitor {

/// Software counter values of one thread since its counters were opened.
struct SoftwareCounts {
  std::uint64_t task_clock_ns = 0;   ///< CPU time, ns
  std::uint64_t migrations = 0;      ///< times the scheduler moved it to another CPU
  std::uint64_t context_switches = 0;
};

/// Hardware counter values of one thread since its counters were opened.
struct HardwareCounts {
  std::uint64_t cycles = 0;
  std::uint64_t instructions = 0;
  std::uint64_t l1d_misses = 0;  ///< L1D read misses
  std::uint64_t llc_misses = 0;  ///< last-level cache misses
};

/// One thread's perf groups. Move-only; closes its descriptors.
class ThreadCounters {
 public:
  ThreadCounters() = default;
  ~ThreadCounters();
  ThreadCounters(const ThreadCounters&) = delete;
  ThreadCounters& operator=(const ThreadCounters&) = delete;
  ThreadCounters(ThreadCounters&& other) noexcept;
  ThreadCounters& operator=(ThreadCounters&& other) noexcept;

  /// Opens the software group for `tid` (and the hardware group when `hardware`). Fails with
  /// perf_event_open's errno (EACCES/EPERM: perf_event_paranoid; ESRCH: thread gone); a
  /// missing hardware group alone is not a failure (has_hardware() is false).
  static Result<ThreadCounters> open(pid_t tid, bool hardware);

  /// Reads the software group (one read(2)). Fails when the thread is gone or read fails.
  Result<SoftwareCounts> read_software() const;
  /// Reads the hardware group; empty when it is not open.
  std::optional<HardwareCounts> read_hardware() const;
  bool has_hardware() const { return hardware_[0] >= 0; }

 private:
  int software_[3] = {-1, -1, -1};     // leader task clock; migrations, context switches
  int hardware_[4] = {-1, -1, -1, -1};  // leader cycles; instructions, L1D, LLC misses
  void close_all();
  void take(ThreadCounters& other);
};

/// Whether this machine gives hardware counters to this process. When not, `why` says why
/// ("no PMU (perf_event_open: No such file or directory)"). Probed once per process.
bool hardware_counters_available(std::string* why);

}  // namespace threadmap::monitor
