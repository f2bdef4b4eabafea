// threadmap — threads of a running process, read from procfs, and pinning them.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"

namespace threadmap {

/// One thread of a process as /proc/PID/task/TID reports it.
struct ThreadInfo {
  pid_t tid = 0;
  std::string name;                        ///< comm, as set by pthread_setname_np (15 chars max)
  char state = '?';                        ///< R, S, D, Z, ...
  CpuSet allowed;                          ///< Cpus_allowed_list: the thread's affinity
  int last_cpu = -1;                       ///< CPU it last ran on (stat field 39)
  std::uint64_t voluntary_switches = 0;    ///< voluntary_ctxt_switches
  std::uint64_t involuntary_switches = 0;  ///< nonvoluntary_ctxt_switches
  std::uint64_t user_ticks = 0;            ///< utime, in clock ticks (sysconf(_SC_CLK_TCK))
  std::uint64_t system_ticks = 0;          ///< stime, in clock ticks
  double cpu_seconds = 0;                  ///< utime + stime in seconds, since the thread started
  double cpu_percent = -1;  ///< share of one CPU over a sample (sample_threads); -1 = not sampled
};

/// Thread ids of process `pid`, ascending. ESRCH when the process does not exist.
Result<std::vector<pid_t>> list_tids(pid_t pid);
/// Reads one thread. ESRCH when it has exited.
Result<ThreadInfo> read_thread(pid_t pid, pid_t tid);
/// Reads every thread of `pid`; threads that exit while being read are left out.
Result<std::vector<ThreadInfo>> list_threads(pid_t pid);
/// Reads every thread of `pid` twice, `seconds` apart, and fills each thread's cpu_percent with
/// its CPU time over that interval (100 = one whole CPU, as top -H shows it). Threads born
/// during the sample keep -1; threads that ended are left out.
Result<std::vector<ThreadInfo>> sample_threads(pid_t pid, double seconds);
/// The process (thread group) thread `tid` belongs to: `tid` itself for a process's main
/// thread, else its process id. ESRCH when there is no such thread.
Result<pid_t> process_of_thread(pid_t tid);
/// Command name of a process (/proc/PID/comm).
Result<std::string> process_name(pid_t pid);

/// Which threads of a process to pin: all, or those matching any name pattern (fnmatch glob,
/// e.g. "worker*") or any listed tid.
struct ThreadSelector {
  std::vector<std::string> name_patterns;
  std::vector<pid_t> tids;
  bool all() const { return name_patterns.empty() && tids.empty(); }
};

/// Outcome of pinning the threads of a running process.
struct PinOutcome {
  std::vector<pid_t> pinned;                    ///< pinned and read back
  std::vector<pid_t> vanished;                  ///< exited before or while pinning
  std::vector<std::pair<pid_t, Error>> failed;  ///< could not be pinned, and why
  std::vector<pid_t> missing_tids;              ///< requested tids not in the process
  int list_passes = 0;                          ///< times the thread list was read
  bool ok() const { return failed.empty() && missing_tids.empty(); }
};

/// Pins the selected threads of `pid` to `cpus`, which must be a subset of `allowed`.
/// Re-reads /proc/PID/task until a pass finds no new thread (at most 10 passes; a list still
/// changing after that is reported as EAGAIN), so threads created meanwhile are not missed.
/// Fails as a whole only when the process does not exist or `cpus` is not allowed; per-thread
/// failures are in the outcome. Nothing is pinned when the request itself is invalid.
Result<PinOutcome> pin_process_threads(pid_t pid, const CpuSet& cpus, const CpuSet& allowed,
                                       const ThreadSelector& selector);

}  // namespace threadmap
