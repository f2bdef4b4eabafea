// Pinning and querying threads: sched_setaffinity / pthread_setaffinity_np with masks sized by
// CPU_ALLOC. Every pin is checked against the allowed set first, so a bad request changes
// nothing and says why.
#include "threadmap/affinity.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "src/core/kernel_mask.hpp"
#include "src/core/topology_state.hpp"
#include "threadmap/topology.hpp"

namespace threadmap {
namespace detail {

int kernel_mask_cpus(const CpuSet& set) {
  long configured = sysconf(_SC_NPROCESSORS_CONF);
  int n = configured > 0 ? static_cast<int>(configured) : 1;
  n = std::max(n, set.last() + 1);
  // The kernel rejects reads into masks smaller than its nr_cpu_ids; round generously.
  return std::max(n, 1024);
}

KernelMask to_kernel_mask(const CpuSet& set, int ncpus, size_t& bytes) {
  KernelMask mask(CPU_ALLOC(ncpus));
  bytes = CPU_ALLOC_SIZE(ncpus);
  if (!mask) return mask;
  CPU_ZERO_S(bytes, mask.get());
  for (int cpu = set.first(); cpu >= 0; cpu = set.next(cpu))
    if (cpu < ncpus) CPU_SET_S(static_cast<size_t>(cpu), bytes, mask.get());
  return mask;
}

CpuSet from_kernel_mask(const cpu_set_t* mask, size_t bytes) {
  CpuSet set;
  for (size_t cpu = 0; cpu < bytes * 8; ++cpu)
    if (CPU_ISSET_S(cpu, bytes, mask)) set.add(static_cast<int>(cpu));
  return set;
}

namespace {
Result<CpuSet> read_tid_affinity(pid_t tid) {
  for (int ncpus = kernel_mask_cpus(CpuSet()); ncpus <= (1 << 20); ncpus *= 2) {
    size_t bytes = 0;
    KernelMask mask = to_kernel_mask(CpuSet(), ncpus, bytes);
    if (!mask) return Error::from_errno(ENOMEM, "cannot allocate a CPU mask");
    if (sched_getaffinity(tid, bytes, mask.get()) == 0) return from_kernel_mask(mask.get(), bytes);
    if (errno != EINVAL) {
      int e = errno;
      return Error::from_errno(e, "cannot read the affinity of tid " + std::to_string(tid) + ": " +
                                      std::strerror(e));
    }
  }
  return Error::from_errno(EINVAL, "cannot read the affinity of tid " + std::to_string(tid));
}

CpuSet capture_startup_affinity() {
  auto r = read_tid_affinity(getpid());
  return r ? *r : CpuSet();
}

// Captured before main() runs (when libthreadmap loads), so a program that pins its main thread
// later still sees the CPUs it was started with.
CpuSet& startup_affinity_storage() {
  static CpuSet set = capture_startup_affinity();
  return set;
}
__attribute__((constructor)) void capture_at_load() { (void)startup_affinity_storage(); }
}  // namespace

const CpuSet& startup_affinity() { return startup_affinity_storage(); }

}  // namespace detail

namespace {

std::string tid_label(pid_t tid) {
  return tid == 0 ? std::string("the calling thread") : "tid " + std::to_string(tid);
}

Status check_request(const std::string& who, const CpuSet& cpus, const CpuSet& allowed) {
  if (cpus.empty()) return Error::invalid("cannot pin " + who + ": the CPU set is empty");
  CpuSet outside = cpus - allowed;
  if (!outside.empty())
    return Error::invalid("cannot pin " + who + " to " + cpus.to_list() + ": CPU " +
                          outside.to_list() + " is not in the allowed set " + allowed.to_list());
  return {};
}

}  // namespace

Result<CpuSet> allowed_cpus() {
  // hwloc discovery is not free; the allowed set of this process only changes if someone moves
  // it to another cgroup, which we accept not to notice.
  static std::once_flag once;
  static Result<CpuSet> cached = Error::invalid("not initialised");
  std::call_once(once, [] {
    auto topo = Topology::load_this_machine();
    if (!topo) {
      cached = topo.error();
    } else {
      cached = topo->allowed_cpus();
    }
  });
  return cached;
}

pid_t current_tid() { return static_cast<pid_t>(syscall(SYS_gettid)); }
int current_cpu() { return sched_getcpu(); }

Status pin_tid(pid_t tid, const CpuSet& cpus, const CpuSet& allowed) {
  std::string who = tid_label(tid);
  if (auto st = check_request(who, cpus, allowed); !st) return st;
  size_t bytes = 0;
  detail::KernelMask mask = detail::to_kernel_mask(cpus, detail::kernel_mask_cpus(cpus), bytes);
  if (!mask) return Error::from_errno(ENOMEM, "cannot allocate a CPU mask");
  if (sched_setaffinity(tid, bytes, mask.get()) != 0) {
    int e = errno;
    return Error::from_errno(e, "cannot pin " + who + " to " + cpus.to_list() + ": " +
                                    std::strerror(e));
  }
  return {};
}

Status pin_tid(pid_t tid, const CpuSet& cpus) {
  auto allowed = allowed_cpus();
  if (!allowed) return allowed.error();
  return pin_tid(tid, cpus, *allowed);
}

Status pin_current_thread(const CpuSet& cpus) { return pin_tid(0, cpus); }

Status pin_current_thread(std::string_view expression) {
  auto topo = Topology::load_this_machine();
  if (!topo) return topo.error();
  auto cpus = topo->resolve(expression);
  if (!cpus) return cpus.error();
  return pin_current_thread(*cpus);
}

Status pin_thread(pthread_t thread, const CpuSet& cpus) {
  auto allowed = allowed_cpus();
  if (!allowed) return allowed.error();
  if (auto st = check_request("thread", cpus, *allowed); !st) return st;
  size_t bytes = 0;
  detail::KernelMask mask = detail::to_kernel_mask(cpus, detail::kernel_mask_cpus(cpus), bytes);
  if (!mask) return Error::from_errno(ENOMEM, "cannot allocate a CPU mask");
  int rc = pthread_setaffinity_np(thread, bytes, mask.get());
  if (rc != 0)
    return Error::from_errno(rc, "cannot pin thread to " + cpus.to_list() + ": " +
                                     std::strerror(rc));
  return {};
}

Status pin_thread(std::thread& thread, const CpuSet& cpus) {
  if (!thread.joinable()) return Error::invalid("cannot pin a std::thread that is not running");
  return pin_thread(thread.native_handle(), cpus);
}

Status unpin_current_thread() {
  auto allowed = allowed_cpus();
  if (!allowed) return allowed.error();
  return pin_current_thread(*allowed);
}

Result<CpuSet> current_thread_affinity() { return detail::read_tid_affinity(0); }

Result<CpuSet> tid_affinity(pid_t tid) {
  if (tid <= 0) return Error::invalid("bad thread id " + std::to_string(tid));
  return detail::read_tid_affinity(tid);
}

Result<CpuSet> thread_affinity(pthread_t thread) {
  for (int ncpus = detail::kernel_mask_cpus(CpuSet()); ncpus <= (1 << 20); ncpus *= 2) {
    size_t bytes = 0;
    detail::KernelMask mask = detail::to_kernel_mask(CpuSet(), ncpus, bytes);
    if (!mask) return Error::from_errno(ENOMEM, "cannot allocate a CPU mask");
    int rc = pthread_getaffinity_np(thread, bytes, mask.get());
    if (rc == 0) return detail::from_kernel_mask(mask.get(), bytes);
    if (rc != EINVAL)
      return Error::from_errno(rc, std::string("cannot read thread affinity: ") + std::strerror(rc));
  }
  return Error::from_errno(EINVAL, "cannot read thread affinity");
}

}  // namespace threadmap
