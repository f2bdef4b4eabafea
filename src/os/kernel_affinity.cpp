// sched_{get,set}affinity and their pthread forms with CPU_ALLOC-sized masks. A read retries
// with a bigger mask on EINVAL, because the kernel refuses masks smaller than its nr_cpu_ids,
// which may exceed what sysconf reports.
#include "src/os/kernel_affinity.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>

namespace threadmap::os {
namespace {

struct MaskFree {
  void operator()(cpu_set_t* m) const { CPU_FREE(m); }
};
using Mask = std::unique_ptr<cpu_set_t, MaskFree>;

// Enough CPUs for `highest` and for reading back any thread's mask on common kernels.
int mask_cpus(int highest) { return std::max({configured_cpus(), highest + 1, 1024}); }

Mask make_mask(const std::vector<int>& cpus, int ncpus, size_t& bytes) {
  Mask mask(CPU_ALLOC(ncpus));
  bytes = CPU_ALLOC_SIZE(ncpus);
  if (!mask) return mask;
  CPU_ZERO_S(bytes, mask.get());
  for (int cpu : cpus)
    if (cpu >= 0 && cpu < ncpus) CPU_SET_S(static_cast<size_t>(cpu), bytes, mask.get());
  return mask;
}

void mask_to_cpus(const cpu_set_t* mask, size_t bytes, std::vector<int>& cpus) {
  cpus.clear();
  for (size_t cpu = 0; cpu < bytes * 8; ++cpu)
    if (CPU_ISSET_S(cpu, bytes, mask)) cpus.push_back(static_cast<int>(cpu));
}

int highest(const std::vector<int>& cpus) { return cpus.empty() ? 0 : cpus.back(); }

// Reads through `query` (returns 0 or an errno), growing the mask while the kernel says EINVAL.
template <class Query>
int read_growing(std::vector<int>& cpus, Query query) {
  for (int ncpus = mask_cpus(0); ncpus <= (1 << 20); ncpus *= 2) {
    size_t bytes = 0;
    Mask mask = make_mask({}, ncpus, bytes);
    if (!mask) return ENOMEM;
    int rc = query(bytes, mask.get());
    if (rc == 0) {
      mask_to_cpus(mask.get(), bytes, cpus);
      return 0;
    }
    if (rc != EINVAL) return rc;
  }
  return EINVAL;
}

}  // namespace

int configured_cpus() {
  long n = sysconf(_SC_NPROCESSORS_CONF);
  return n > 0 ? static_cast<int>(n) : 1;
}

int get_tid_affinity(pid_t tid, std::vector<int>& cpus) {
  return read_growing(cpus, [tid](size_t bytes, cpu_set_t* mask) {
    return sched_getaffinity(tid, bytes, mask) == 0 ? 0 : errno;
  });
}

int set_tid_affinity(pid_t tid, const std::vector<int>& cpus) {
  size_t bytes = 0;
  Mask mask = make_mask(cpus, mask_cpus(highest(cpus)), bytes);
  if (!mask) return ENOMEM;
  return sched_setaffinity(tid, bytes, mask.get()) == 0 ? 0 : errno;
}

int get_thread_affinity(pthread_t thread, std::vector<int>& cpus) {
  return read_growing(cpus, [thread](size_t bytes, cpu_set_t* mask) {
    return pthread_getaffinity_np(thread, bytes, mask);
  });
}

int set_thread_affinity(pthread_t thread, const std::vector<int>& cpus) {
  size_t bytes = 0;
  Mask mask = make_mask(cpus, mask_cpus(highest(cpus)), bytes);
  if (!mask) return ENOMEM;
  return pthread_setaffinity_np(thread, bytes, mask.get());
}

pid_t current_tid() { return static_cast<pid_t>(syscall(SYS_gettid)); }
pid_t current_pid() { return getpid(); }
int current_cpu() { return sched_getcpu(); }
void yield_cpu() { sched_yield(); }

bool process_exists(pid_t pid) { return pid > 0 && !(kill(pid, 0) != 0 && errno == ESRCH); }

}  // namespace threadmap::os
