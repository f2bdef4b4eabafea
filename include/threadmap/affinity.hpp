// threadmap — pin and query threads of this process.
//
// Every call sizes kernel masks for any CPU count (CPU_ALLOC), so machines with more than
// CPU_SETSIZE (1024) CPUs work. A pin request must be a non-empty subset of allowed_cpus();
// otherwise it fails with EINVAL and a message naming both sets, and nothing is changed.
#pragma once

#include <pthread.h>
#include <sys/types.h>

#include <string_view>
#include <thread>

#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"

namespace threadmap {

/// CPUs this process may use: the cgroup cpuset AND the process's affinity mask as it was when
/// threadmap was first used in this process (so pinning one thread does not shrink it).
Result<CpuSet> allowed_cpus();

/// Kernel thread id of the calling thread.
pid_t current_tid();
/// CPU the calling thread is running on now (sched_getcpu), or -1 with errno set.
int current_cpu();

/// Pins the calling thread to `cpus`. EINVAL when empty or outside allowed_cpus().
Status pin_current_thread(const CpuSet& cpus);
/// Pins the calling thread to a CPU expression resolved on this machine ("core:1", "2-3").
Status pin_current_thread(std::string_view expression);
/// Pins a thread of this process by pthread handle.
Status pin_thread(pthread_t thread, const CpuSet& cpus);
/// Pins a std::thread (through its native handle). Fails with EINVAL if not joinable.
Status pin_thread(std::thread& thread, const CpuSet& cpus);
/// Pins any thread of any process by kernel thread id (needs permission: same user or
/// CAP_SYS_NICE). `allowed` is the set to check against (see Topology::allowed_cpus()).
Status pin_tid(pid_t tid, const CpuSet& cpus, const CpuSet& allowed);
/// Pins a thread of this process by kernel thread id, checked against allowed_cpus().
Status pin_tid(pid_t tid, const CpuSet& cpus);
/// Gives the calling thread back the whole allowed_cpus() set.
Status unpin_current_thread();

/// Affinity of the calling thread.
Result<CpuSet> current_thread_affinity();
/// Affinity of a thread by pthread handle.
Result<CpuSet> thread_affinity(pthread_t thread);
/// Affinity of any thread by kernel thread id. ESRCH when it does not exist.
Result<CpuSet> tid_affinity(pid_t tid);

}  // namespace threadmap
