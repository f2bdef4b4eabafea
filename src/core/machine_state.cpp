// Judging the counters of os::machine_probe (see machine_state.hpp for the rules).
#include "src/core/machine_state.hpp"

#include <algorithm>
#include <vector>

#include "src/core/format_text.hpp"
#include "src/os/monotonic_clock.hpp"

namespace threadmap {
namespace {

// Ticks of `cpus` between two snapshots, summed; CPUs missing from either are skipped.
os::CpuTicks ticks_between(const os::MachineSnapshot& from, const os::MachineSnapshot& to,
                           const CpuSet& cpus) {
  os::CpuTicks sum;
  for (int cpu : cpus.to_vector()) {
    auto a = from.cpus.find(cpu);
    auto b = to.cpus.find(cpu);
    if (a == from.cpus.end() || b == to.cpus.end()) continue;
    // Counters only grow; a CPU that went offline and back restarts them: count nothing then.
    if (b->second.busy < a->second.busy || b->second.idle < a->second.idle ||
        b->second.steal < a->second.steal)
      continue;
    sum.busy += b->second.busy - a->second.busy;
    sum.idle += b->second.idle - a->second.idle;
    sum.steal += b->second.steal - a->second.steal;
  }
  return sum;
}

}  // namespace

const char* machine_verdict_name(MachineVerdict verdict) {
  switch (verdict) {
    case MachineVerdict::quiet:
      return "quiet";
    case MachineVerdict::busy:
      return "busy";
    case MachineVerdict::unknown:
      break;
  }
  return "unknown";
}

MachineVerdict machine_verdict_from_name(const std::string& name) {
  if (name == "quiet") return MachineVerdict::quiet;
  if (name == "busy") return MachineVerdict::busy;
  return MachineVerdict::unknown;
}

MachineState judge_machine_state(const os::MachineSnapshot& window_start,
                                 const os::MachineSnapshot& start, const os::MachineSnapshot& end,
                                 const os::Virtualization& virtualization,
                                 const std::string& cpufreq_policy, const CpuSet& cpus,
                                 const MachineStateLimits& limits) {
  MachineState s;
  s.guest = virtualization.guest;
  s.hypervisor = virtualization.hypervisor;
  s.hypervisor_evidence = virtualization.evidence;
  s.cpufreq_policy = cpufreq_policy;
  s.cpus = cpus.to_list();
  s.cpu_count = static_cast<int>(cpus.count());
  s.evidence =
      "measured here: /proc/stat CPU time of the judged CPUs (others' share in a window just "
      "before, while threadmap slept; steal from start to end), runnable tasks and /proc/loadavg "
      "at start and end";
  // The reader itself is one of procs_running.
  if (start.procs_running >= 0) s.runnable_before = std::max(0, start.procs_running - 1);
  if (end.procs_running >= 0) s.runnable_after = std::max(0, end.procs_running - 1);
  s.load1_before = start.load1;
  s.load1_after = end.load1;
  s.duration_s = static_cast<double>(end.taken_ns - start.taken_ns) / 1e9;

  if (window_start.taken_ns < start.taken_ns) {
    s.idle_window_s = static_cast<double>(start.taken_ns - window_start.taken_ns) / 1e9;
    os::CpuTicks w = ticks_between(window_start, start, cpus);
    const std::uint64_t total = w.busy + w.idle + w.steal;
    // Clock ticks are 10 ms: a window shorter than a tick per CPU says nothing.
    if (total > 0) s.others_busy_pct_before = 100.0 * static_cast<double>(w.busy) / total;
  }
  os::CpuTicks run = ticks_between(start, end, cpus);
  const std::uint64_t run_total = run.busy + run.idle + run.steal;
  if (run_total > 0) s.steal_pct = 100.0 * static_cast<double>(run.steal) / run_total;

  if (start.cpus.empty() || end.cpus.empty()) {
    s.verdict = MachineVerdict::unknown;
    s.summary = "machine state unknown: no CPU counters";
    return s;
  }
  std::vector<std::string> busy_because;
  if (s.others_busy_pct_before >= limits.busy_others_pct)
    busy_because.push_back(format_text("others used %.0f%% of CPUs %s just before",
                                       s.others_busy_pct_before, s.cpus.c_str()));
  if (s.steal_pct >= limits.busy_steal_pct)
    busy_because.push_back(format_text("steal %.1f%%", s.steal_pct));
  const std::string guest =
      s.guest ? (s.hypervisor.empty() ? "virtual machine" : s.hypervisor + " guest") : "";
  if (busy_because.empty()) {
    s.verdict = MachineVerdict::quiet;
    s.summary = "quiet machine";
    std::vector<std::string> notes;
    if (s.others_busy_pct_before >= 0)
      notes.push_back(
          format_text("others used %.0f%% of the CPUs just before", s.others_busy_pct_before));
    if (s.steal_pct >= 0) notes.push_back(format_text("steal %.1f%%", s.steal_pct));
    if (!guest.empty()) notes.insert(notes.begin(), guest);
    if (!notes.empty()) {
      s.summary += " (";
      for (std::size_t i = 0; i < notes.size(); ++i) s.summary += (i ? ", " : "") + notes[i];
      s.summary += ")";
    }
    return s;
  }
  s.verdict = MachineVerdict::busy;
  s.summary = "busy: ";
  for (std::size_t i = 0; i < busy_because.size(); ++i)
    s.summary += (i ? ", " : "") + busy_because[i];
  const int runnable = std::max(s.runnable_before, s.runnable_after);
  if (runnable >= 0)
    s.summary += format_text(", %d runnable tasks on %d CPUs", runnable, s.cpu_count);
  if (!guest.empty()) s.summary += " (" + guest + ")";
  return s;
}

void MachineWatch::start(const CpuSet& cpus, int idle_window_ms) {
  cpus_ = cpus;
  virtualization_ = os::read_virtualization();
  const std::vector<int> list = cpus.to_vector();
  cpufreq_ = list.empty() ? "" : os::read_cpufreq_policy(list.front());
  auto first = os::read_machine_snapshot();
  if (!first) {
    ok_ = false;
    error_ = first.error().message;
    return;
  }
  window_start_ = *first;
  if (idle_window_ms > 0) {
    os::sleep_ns(static_cast<std::int64_t>(idle_window_ms) * 1'000'000);
    auto second = os::read_machine_snapshot();
    if (!second) {
      ok_ = false;
      error_ = second.error().message;
      return;
    }
    start_ = *second;
  } else {
    start_ = window_start_;
  }
  ok_ = true;
}

MachineState MachineWatch::finish(const MachineStateLimits& limits) const {
  if (!ok_) {
    MachineState s;
    s.summary = "machine state unknown: " + error_;
    s.evidence = "unknown: " + error_;
    s.cpus = cpus_.to_list();
    s.cpu_count = static_cast<int>(cpus_.count());
    s.guest = virtualization_.guest;
    s.hypervisor = virtualization_.hypervisor;
    return s;
  }
  auto end = os::read_machine_snapshot();
  if (!end) {
    MachineState s = judge_machine_state(window_start_, start_, start_, virtualization_, cpufreq_,
                                         cpus_, limits);
    s.summary += " (end counters unreadable: " + end.error().message + ")";
    return s;
  }
  return judge_machine_state(window_start_, start_, *end, virtualization_, cpufreq_, cpus_, limits);
}

}  // namespace threadmap
