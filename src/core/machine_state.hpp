// The state of the machine around a measurement, judged: was it quiet or busy, is it a virtual
// machine, how much time did the hypervisor steal. Every measurement threadmap records
// (latency, bench, report, tune) carries one, so a reader can tell a result from the noise of
// the day. The counters come from os::machine_probe; this file only judges them.
#pragma once

#include <cstdint>
#include <string>

#include "src/os/machine_probe.hpp"
#include "threadmap/cpuset.hpp"

namespace threadmap {

/// What the machine was doing: quiet, busy, or unknown (the counters could not be read).
enum class MachineVerdict { unknown, quiet, busy };

/// "unknown", "quiet", "busy": the words of the JSON's machine_state.verdict.
const char* machine_verdict_name(MachineVerdict verdict);

/// The verdict a JSON word names; unknown for any other word.
MachineVerdict machine_verdict_from_name(const std::string& name);

/// The judged state, written to JSON as "machine_state" (docs/json.md).
struct MachineState {
  MachineVerdict verdict = MachineVerdict::unknown;
  bool busy() const { return verdict == MachineVerdict::busy; }
  /// One line for the top of a page or table: "quiet machine (KVM guest)", "busy: others used
  /// 63% of CPUs 0-1 just before, 3 runnable tasks on 2 CPUs, steal 7.1%".
  std::string summary;
  std::string evidence;  ///< where the numbers come from (measured here, which files)
  bool guest = false;
  std::string hypervisor;           ///< "" when unknown or not a guest
  std::string hypervisor_evidence;  ///< CPUID leaf, DMI, ...
  std::string cpufreq_policy;       ///< "schedutil (intel_pstate)"; "" = not visible
  std::string cpus;                 ///< the CPUs judged (kernel list)
  int cpu_count = 0;
  /// Percent of those CPUs' time that others used in the quiet window just before the
  /// measurement (threadmap itself sleeps then); -1 when no window was taken.
  double others_busy_pct_before = -1;
  double idle_window_s = 0;
  /// Runnable tasks machine-wide other than the reader, at start and at end; -1 unknown.
  int runnable_before = -1;
  int runnable_after = -1;
  double load1_before = -1;  ///< 1-minute load average, machine-wide
  double load1_after = -1;
  /// Percent of those CPUs' time stolen by the hypervisor from start to end; -1 unknown.
  double steal_pct = -1;
  double duration_s = 0;  ///< start to end
};

/// The thresholds of the verdict.
struct MachineStateLimits {
  double busy_others_pct = 10;  ///< others' share of our CPUs before the run that makes it busy
  double busy_steal_pct = 5;    ///< steal that makes it busy
};

/// Judges counters taken around a measurement: `window_start` and `start` bracket a window in
/// which threadmap slept (others' use of `cpus` then is the neighbours' load), `end` closes the
/// measurement. window_start.taken_ns == start.taken_ns means no window. Pure (tests feed it
/// recorded /proc/stat text).
MachineState judge_machine_state(const os::MachineSnapshot& window_start,
                                 const os::MachineSnapshot& start, const os::MachineSnapshot& end,
                                 const os::Virtualization& virtualization,
                                 const std::string& cpufreq_policy, const CpuSet& cpus,
                                 const MachineStateLimits& limits = {});

/// Watches the machine around a measurement: start() sleeps `idle_window_ms` to see what the
/// neighbours do, then records; finish() records again and judges. A watch whose counters
/// could not be read finishes as "unknown" with the reason, never as an error: the measurement
/// itself is still worth having.
class MachineWatch {
 public:
  void start(const CpuSet& cpus, int idle_window_ms = 200);
  MachineState finish(const MachineStateLimits& limits = {}) const;

 private:
  CpuSet cpus_;
  bool ok_ = false;
  std::string error_;
  os::MachineSnapshot window_start_;
  os::MachineSnapshot start_;
  os::Virtualization virtualization_;
  std::string cpufreq_;
};

}  // namespace threadmap
