// Per-thread counters: CPU time, migrations and context switches (software counters every Linux
// has) and, where the machine exposes a PMU, cycles, instructions, L1D / LLC / dTLB misses.
// One class for every user: `watch` samples other processes' threads with it, the experiments
// count their own threads around a timed run.
//
// Where the numbers come from, in order of preference, decided when the counters are opened:
//  - perf_event_open software counters (one group, one read(2) per sample);
//  - /proc/.../sched (se.nr_migrations, nr_switches, se.sum_exec_runtime) when perf is not
//    allowed (perf_event_paranoid) but the kernel has CONFIG_SCHED_DEBUG;
//  - nothing (source observed): the caller may still count CPU changes it sees itself.
// Hardware counters are all or nothing per thread: VMs usually have none, said once, and the
// software counts still work.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "src/os/perf_group.hpp"
#include "src/os/procfs.hpp"
#include "threadmap/result.hpp"

namespace threadmap::monitor {

/// Software counts of one thread since its counters were opened.
struct SoftwareCounts {
  std::uint64_t task_clock_ns = 0;  ///< CPU time, ns
  std::uint64_t migrations = 0;     ///< times the scheduler moved it to another CPU
  std::uint64_t context_switches = 0;
  /// Time runnable on a run queue, waiting for a CPU, ns (/proc/.../schedstat, read by the
  /// ThreadSampler; 0 where the kernel keeps no schedstat): what tells a thread starved of CPU
  /// from one asleep, when neither used much CPU time.
  std::uint64_t wait_ns = 0;
};

/// Hardware counts of one thread since its counters were opened (user mode only).
struct HardwareCounts {
  std::uint64_t cycles = 0;
  std::uint64_t instructions = 0;
  std::uint64_t l1d_misses = 0;   ///< L1D read misses
  std::uint64_t llc_misses = 0;   ///< last-level cache misses
  std::uint64_t dtlb_misses = 0;  ///< dTLB read misses
};

/// Where a thread's software counts come from.
enum class CounterSource {
  perf,      ///< perf_event_open software counters
  sched,     ///< /proc/.../sched
  observed,  ///< neither could be opened: the caller can only count CPU changes it sees
             ///< between samples (a lower bound)
};

/// Name of a counter source as printed ("perf_event_open software counters", ...).
const char* counter_source_name(CounterSource source);

/// Which thread, and what to try.
struct CounterTarget {
  pid_t pid = 0;  ///< process; 0 with tid 0 = the calling thread (/proc/thread-self)
  pid_t tid = 0;
  bool hardware = true;  ///< try hardware counters
  bool use_perf = true;  ///< false forces the procfs fallback (tests, comparisons)
};

/// One thread's counters. Move-only; closes its descriptors.
class ThreadCounters {
 public:
  ThreadCounters() = default;
  ThreadCounters(ThreadCounters&&) noexcept = default;
  ThreadCounters& operator=(ThreadCounters&&) noexcept = default;
  ThreadCounters(const ThreadCounters&) = delete;
  ThreadCounters& operator=(const ThreadCounters&) = delete;

  /// Opens the best source for `target`; counts start now. Fails only with ESRCH (the thread is
  /// gone); a thread whose counters cannot be opened at all gets source() observed and `why()`.
  static Result<ThreadCounters> open(const CounterTarget& target);

  /// Software counts since open(). Fails when the thread is gone (or source() is observed).
  Result<SoftwareCounts> read_software() const;
  /// Hardware counts since open(); empty when not counted for this thread.
  std::optional<HardwareCounts> read_hardware() const;

  CounterSource source() const { return source_; }
  bool has_hardware() const { return hardware_.is_open(); }
  /// Why perf software counters are not used (empty when they are).
  const std::string& why_not_perf() const { return why_not_perf_; }
  /// Why hardware counters are not counted (empty when they are).
  const std::string& why_no_hardware() const { return why_no_hardware_; }

 private:
  CounterSource source_ = CounterSource::observed;
  os::PerfGroup software_;
  os::PerfGroup hardware_;
  os::ProcFile sched_;
  SoftwareCounts sched_base_;  // the sched file's first reading, subtracted from later ones
  std::string why_not_perf_;
  std::string why_no_hardware_;
};

/// Whether this machine gives hardware counters to this process. When not, `why` says why
/// ("no hardware counters (perf_event_open cycles: No such file or directory)"). Probed once.
bool hardware_counters_available(std::string* why);

}  // namespace threadmap::monitor
