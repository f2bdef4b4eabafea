// Threads of a running process, and pinning them. Thread lists change under our feet: the walk
// re-reads until stable, and a thread that vanishes is reported, not fatal. procfs is read and
// parsed in src/os (procfs.hpp, proc_parse.hpp); this file decides what the results mean.
#include <fnmatch.h>

#include <algorithm>
#include <cerrno>

#include "src/os/monotonic_clock.hpp"
#include "src/os/proc_parse.hpp"
#include "src/os/procfs.hpp"
#include "threadmap/affinity.hpp"
#include "threadmap/process.hpp"

namespace threadmap {
namespace {

Error no_process(pid_t pid) {
  return Error::from_errno(ESRCH, "no process with pid " + std::to_string(pid));
}

bool selected(const ThreadInfo& t, const ThreadSelector& sel) {
  if (sel.all()) return true;
  if (std::find(sel.tids.begin(), sel.tids.end(), t.tid) != sel.tids.end()) return true;
  for (const std::string& pattern : sel.name_patterns)
    if (fnmatch(pattern.c_str(), t.name.c_str(), 0) == 0) return true;
  return false;
}

}  // namespace

Result<std::vector<pid_t>> list_tids(pid_t pid) { return os::list_task_ids(pid); }

Result<ThreadInfo> read_thread(pid_t pid, pid_t tid) {
  auto gone = [&] {
    return Error::from_errno(
        ESRCH, "thread " + std::to_string(tid) + " of process " + std::to_string(pid) + " is gone");
  };
  auto stat_text = os::read_proc_text(os::task_path(pid, tid, "stat"));
  auto status_text = os::read_proc_text(os::task_path(pid, tid, "status"));
  if (!stat_text || !status_text) return gone();
  auto stat = os::parse_task_stat(*stat_text);
  if (!stat) return gone();
  os::TaskStatus status = os::parse_task_status(*status_text);
  ThreadInfo info;
  info.tid = tid;
  info.state = stat->state;
  info.user_ticks = stat->user_ticks;
  info.system_ticks = stat->system_ticks;
  info.cpu_seconds = static_cast<double>(stat->user_ticks + stat->system_ticks) /
                     static_cast<double>(os::clock_ticks_per_second());
  info.last_cpu = stat->last_cpu;
  info.name = status.name;
  if (auto set = CpuSet::parse_list(status.cpus_allowed_list)) info.allowed = *set;
  info.voluntary_switches = status.voluntary_switches.value_or(0);
  info.involuntary_switches = status.involuntary_switches.value_or(0);
  return info;
}

Result<std::vector<ThreadInfo>> list_threads(pid_t pid) {
  auto tids = list_tids(pid);
  if (!tids) return tids.error();
  std::vector<ThreadInfo> out;
  for (pid_t tid : *tids)
    if (auto info = read_thread(pid, tid)) out.push_back(std::move(*info));
  if (out.empty()) return no_process(pid);
  return out;
}

Result<std::vector<ThreadInfo>> sample_threads(pid_t pid, double seconds) {
  auto before = list_threads(pid);
  if (!before) return before.error();
  const std::int64_t start = os::monotonic_ns();
  os::sleep_ns(static_cast<std::int64_t>(seconds * 1e9));
  auto after = list_threads(pid);
  if (!after) return after.error();
  // The interval actually slept, not the one asked for: a loaded machine oversleeps.
  const double interval = static_cast<double>(os::monotonic_ns() - start) / 1e9;
  if (interval <= 0) return after;
  for (ThreadInfo& t : *after) {
    auto was = std::find_if(before->begin(), before->end(),
                            [&](const ThreadInfo& b) { return b.tid == t.tid; });
    if (was == before->end()) continue;  // born during the sample: no start value
    t.cpu_percent = std::max(0.0, t.cpu_seconds - was->cpu_seconds) / interval * 100.0;
  }
  return after;
}

Result<pid_t> process_of_thread(pid_t tid) {
  if (tid <= 0) return no_process(tid);
  // /proc/TID/ resolves for any thread, listed or not; its status names the thread group.
  auto text = os::read_proc_text(os::process_path(tid, "status"));
  if (!text) return Error::from_errno(ESRCH, "no thread or process with id " + std::to_string(tid));
  auto status = os::parse_task_status(*text);
  if (!status.thread_group)
    return Error::from_errno(ESRCH, "no thread or process with id " + std::to_string(tid));
  return *status.thread_group;
}

Result<std::string> process_name(pid_t pid) {
  if (pid <= 0) return no_process(pid);
  auto text = os::read_proc_text(os::process_path(pid, "comm"));
  if (!text) return no_process(pid);
  std::string name = *text;
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.pop_back();
  return name;
}

Result<PinOutcome> pin_process_threads(pid_t pid, const CpuSet& cpus, const CpuSet& allowed,
                                       const ThreadSelector& selector) {
  if (cpus.empty())
    return Error::invalid("cannot pin the threads of " + std::to_string(pid) +
                          ": the CPU set is empty");
  CpuSet outside = cpus - allowed;
  if (!outside.empty())
    return Error::invalid("cannot pin the threads of " + std::to_string(pid) + " to " +
                          cpus.to_list() + ": CPU " + outside.to_list() +
                          " is not in the allowed set " + allowed.to_list());
  if (!list_tids(pid)) return no_process(pid);

  PinOutcome outcome;
  std::vector<pid_t> seen;
  constexpr int kMaxPasses = 10;
  auto walk = os::walk_tasks_until_stable(pid, kMaxPasses, [&](pid_t tid) {
    seen.push_back(tid);
    auto info = read_thread(pid, tid);
    if (!info) {
      outcome.vanished.push_back(tid);
      return;
    }
    if (!selected(*info, selector)) return;
    auto st = pin_tid(tid, cpus, allowed);
    if (st) {
      outcome.pinned.push_back(tid);
    } else if (st.error().code.value() == ESRCH) {
      outcome.vanished.push_back(tid);
    } else {
      outcome.failed.emplace_back(tid, st.error());
    }
  });
  if (!walk) return walk.error();
  outcome.list_passes = walk->passes;
  // A process that exited meanwhile keeps what was pinned reported; a list still changing after
  // the bound is a failure the caller must see.
  if (!walk->stable && !walk->process_gone)
    outcome.failed.emplace_back(
        0, Error::from_errno(EAGAIN, "the thread list of process " + std::to_string(pid) +
                                         " kept changing for " + std::to_string(kMaxPasses) +
                                         " passes; threads created since may be unpinned"));
  for (pid_t tid : selector.tids)
    if (std::find(seen.begin(), seen.end(), tid) == seen.end()) outcome.missing_tids.push_back(tid);
  return outcome;
}

}  // namespace threadmap
