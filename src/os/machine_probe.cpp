// Readers of /proc/stat, /proc/loadavg, the hypervisor's CPUID leaf and sysfs (see header).
#include "src/os/machine_probe.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "src/os/monotonic_clock.hpp"
#include "src/os/procfs.hpp"
#include "src/os/small_text.hpp"

namespace threadmap::os {
namespace {

// A small sysfs/procfs file's first line, "" when it cannot be read.
std::string first_line(const std::string& path) {
  auto text = read_proc_text(path);
  if (!text) return "";
  std::string s = *text;
  std::size_t nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  return std::string(trimmed(s));
}

#if defined(__x86_64__) || defined(__i386__)
// CPUID leaf 1 ECX bit 31 is set by every hypervisor that admits to being one; leaf 0x40000000
// then carries its 12-byte signature in EBX, ECX, EDX.
std::string cpuid_hypervisor_signature(bool& present) {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  present = false;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return "";
  if (!(ecx & (1u << 31))) return "";
  present = true;
  __cpuid(0x40000000, eax, ebx, ecx, edx);
  char sig[13] = {};
  std::memcpy(sig, &ebx, 4);
  std::memcpy(sig + 4, &ecx, 4);
  std::memcpy(sig + 8, &edx, 4);
  return std::string(trimmed(sig));
}
#endif

}  // namespace

Status parse_proc_stat(const std::string& text, MachineSnapshot& snapshot) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("cpu", 0) == 0 && line.size() > 3 && line[3] >= '0' && line[3] <= '9') {
      std::istringstream fields(line.substr(3));
      int cpu = -1;
      std::vector<std::uint64_t> v;
      fields >> cpu;
      std::uint64_t x = 0;
      while (fields >> x) v.push_back(x);
      if (cpu < 0 || v.size() < 4)
        return Error::invalid("malformed /proc/stat line \"" + line + "\"");
      v.resize(10, 0);
      // user nice system idle iowait irq softirq steal guest guest_nice
      CpuTicks t;
      t.busy = v[0] + v[1] + v[2] + v[5] + v[6];
      t.idle = v[3] + v[4];
      t.steal = v[7];
      snapshot.cpus[cpu] = t;
    } else if (line.rfind("procs_running ", 0) == 0) {
      snapshot.procs_running = std::atoi(line.c_str() + 14);
    }
  }
  return {};
}

Status parse_loadavg(const std::string& text, MachineSnapshot& snapshot) {
  double l1 = 0, l5 = 0;
  if (std::sscanf(text.c_str(), "%lf %lf", &l1, &l5) != 2)
    return Error::invalid("malformed /proc/loadavg \"" + std::string(trimmed(text)) + "\"");
  snapshot.load1 = l1;
  snapshot.load5 = l5;
  return {};
}

Result<MachineSnapshot> read_machine_snapshot(const std::string& root) {
  MachineSnapshot snapshot;
  snapshot.taken_ns = monotonic_ns();
  auto stat = read_proc_text(root + "/proc/stat");
  if (!stat) return stat.error().with_context("cannot read " + root + "/proc/stat");
  if (Status s = parse_proc_stat(*stat, snapshot); !s) return s.error();
  if (auto load = read_proc_text(root + "/proc/loadavg")) {
    if (Status s = parse_loadavg(*load, snapshot); !s) return s.error();
  }
  return snapshot;
}

std::string hypervisor_from_signature(const std::string& signature) {
  struct Known {
    const char* needle;
    const char* name;
  };
  // CPUID signatures first, then the DMI strings clouds and hypervisors put in their firmware.
  static const Known known[] = {
      {"KVMKVMKVM", "KVM"},
      {"Microsoft Hv", "Microsoft Hyper-V"},
      {"VMwareVMware", "VMware"},
      {"XenVMMXenVMM", "Xen"},
      {"TCGTCGTCGTCG", "QEMU (TCG)"},
      {"bhyve bhyve", "bhyve"},
      {"ACRNACRNACRN", "ACRN"},
      {"VBoxVBoxVBox", "VirtualBox"},
      {"Amazon EC2", "KVM (Amazon EC2)"},
      {"Google Compute Engine", "KVM (Google Compute Engine)"},
      {"Microsoft Corporation", "Microsoft Hyper-V"},
      {"VMware", "VMware"},
      {"innotek GmbH", "VirtualBox"},
      {"QEMU", "QEMU/KVM"},
      {"KVM", "KVM"},
      {"Xen", "Xen"},
  };
  for (const Known& k : known) {
    if (signature.find(k.needle) != std::string::npos) return k.name;
  }
  return "";
}

Virtualization read_virtualization(const std::string& root, bool use_cpuid) {
  Virtualization v;
#if defined(__x86_64__) || defined(__i386__)
  if (use_cpuid) {
    bool present = false;
    std::string sig = cpuid_hypervisor_signature(present);
    if (present) {
      v.guest = true;
      v.hypervisor = hypervisor_from_signature(sig);
      v.evidence = "CPUID hypervisor bit, signature \"" + sig + "\"";
    }
  }
#else
  (void)use_cpuid;
#endif
  const std::string type = first_line(root + "/sys/hypervisor/type");
  if (!type.empty()) {
    v.guest = true;
    if (v.hypervisor.empty()) v.hypervisor = hypervisor_from_signature(type);
    if (v.hypervisor.empty()) v.hypervisor = type;
    if (v.evidence.empty()) v.evidence = "/sys/hypervisor/type \"" + type + "\"";
  }
  const std::string vendor = first_line(root + "/sys/class/dmi/id/sys_vendor");
  const std::string product = first_line(root + "/sys/class/dmi/id/product_name");
  const std::string from_dmi = hypervisor_from_signature(vendor + " " + product);
  if (!from_dmi.empty()) {
    // A cloud's DMI names the cloud where CPUID names only the hypervisor: keep the richer one.
    if (!v.guest || v.hypervisor.empty() || from_dmi.size() > v.hypervisor.size())
      v.hypervisor = from_dmi;
    if (!v.guest) v.evidence = "DMI \"" + std::string(trimmed(vendor + " " + product)) + "\"";
    v.guest = true;
  }
  return v;
}

std::string read_cpufreq_policy(int cpu, const std::string& root) {
  const std::string dir = root + "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/";
  const std::string governor = first_line(dir + "scaling_governor");
  if (governor.empty()) return "";
  const std::string driver = first_line(dir + "scaling_driver");
  return driver.empty() ? governor : governor + " (" + driver + ")";
}

}  // namespace threadmap::os
