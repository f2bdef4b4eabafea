// What the machine around a measurement is doing and what it is: CPU time counters per CPU
// (/proc/stat: busy, idle, steal), runnable tasks and load averages, whether this is a virtual
// machine and of which hypervisor, and the CPU frequency policy. Readers plus the pure parsers
// of their text (tested on recorded files); judging the numbers is core's (machine_state).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "threadmap/result.hpp"

namespace threadmap::os {

/// One CPU's time since boot, in clock ticks, folded into what matters for noise.
struct CpuTicks {
  std::uint64_t busy = 0;  ///< user + nice + system + irq + softirq (guest time is in user)
  std::uint64_t idle = 0;  ///< idle + iowait
  std::uint64_t steal =
      0;  ///< time the hypervisor ran something else while this vCPU wanted to run
};

/// The kernel's counters at one instant.
struct MachineSnapshot {
  std::int64_t taken_ns = 0;     ///< CLOCK_MONOTONIC when read
  std::map<int, CpuTicks> cpus;  ///< per OS CPU number ("cpuN" lines of /proc/stat)
  int procs_running = -1;        ///< runnable tasks now, machine-wide, the reader included
  double load1 = -1;             ///< /proc/loadavg, machine-wide
  double load5 = -1;
};

/// Parses /proc/stat text into `snapshot` (cpus, procs_running). EINVAL naming the line when
/// a "cpuN" line is malformed.
Status parse_proc_stat(const std::string& text, MachineSnapshot& snapshot);
/// Parses /proc/loadavg text ("0.52 0.58 0.59 2/345 4242") into load1/load5.
Status parse_loadavg(const std::string& text, MachineSnapshot& snapshot);

/// Reads /proc/stat and /proc/loadavg now. `root` prefixes both paths (tests).
Result<MachineSnapshot> read_machine_snapshot(const std::string& root = "");

/// Whether this runs in a virtual machine, and whose.
struct Virtualization {
  bool guest = false;
  std::string hypervisor;  ///< "KVM", "Microsoft Hyper-V", "VMware", "Xen", ...; "" unknown
  std::string evidence;    ///< where that came from ("CPUID hypervisor leaf", "DMI sys_vendor")
};

/// Maps a CPUID hypervisor signature ("KVMKVMKVM", "Microsoft Hv", ...) or a DMI vendor/product
/// string to a hypervisor name; "" when it names none.
std::string hypervisor_from_signature(const std::string& signature);

/// The CPUID hypervisor bit and leaf 0x40000000 (x86), then /sys/hypervisor/type, then DMI
/// (/sys/class/dmi/id/sys_vendor, product_name). `root` prefixes the sysfs paths (tests);
/// `use_cpuid` false skips the instruction (tests).
Virtualization read_virtualization(const std::string& root = "", bool use_cpuid = true);

/// "schedutil (intel_pstate)" from CPU `cpu`'s cpufreq policy; "" when the machine shows none
/// (most VMs).
std::string read_cpufreq_policy(int cpu, const std::string& root = "");

}  // namespace threadmap::os
