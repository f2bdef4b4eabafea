// Thread affinity and identity, as the kernel sees them. CPU sets cross this boundary as
// ascending vectors of OS CPU numbers so the OS layer does not depend on core's CpuSet (core
// is built on top of this layer). Masks are sized with CPU_ALLOC, so any CPU count works.
#pragma once

#include <pthread.h>
#include <sys/types.h>

#include <vector>

namespace threadmap::os {

/// CPUs the kernel was configured with (sysconf(_SC_NPROCESSORS_CONF)); at least 1.
int configured_cpus();

/// Reads the affinity of thread `tid` (0 = the calling thread) into `cpus` (ascending).
/// Returns 0, or the errno of sched_getaffinity (ESRCH: no such thread; ENOMEM).
int get_tid_affinity(pid_t tid, std::vector<int>& cpus);
/// Sets the affinity of thread `tid` (0 = the calling thread) to `cpus`. Returns 0, or the
/// errno of sched_setaffinity (EINVAL: no allowed CPU in the set; ESRCH; EPERM; ENOMEM).
int set_tid_affinity(pid_t tid, const std::vector<int>& cpus);
/// Same for a pthread handle (pthread_getaffinity_np / pthread_setaffinity_np).
int get_thread_affinity(pthread_t thread, std::vector<int>& cpus);
int set_thread_affinity(pthread_t thread, const std::vector<int>& cpus);

/// Kernel thread id of the calling thread (gettid).
pid_t current_tid();
/// Process id of the calling process.
pid_t current_pid();
/// CPU the calling thread is running on now (sched_getcpu), or -1.
int current_cpu();
/// Gives up the CPU (sched_yield): for spin-waits that must let a sibling thread run.
void yield_cpu();
/// True when a process with this pid exists (kill(pid, 0) does not say ESRCH).
bool process_exists(pid_t pid);

}  // namespace threadmap::os
