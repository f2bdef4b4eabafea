// Pinning and querying threads. Every pin is checked against the allowed set first, so a bad
// request changes nothing and says why; the kernel calls themselves are in src/os/affinity.
#include "threadmap/affinity.hpp"

#include <cerrno>
#include <cstring>
#include <mutex>

#include "src/core/topology_state.hpp"
#include "src/os/kernel_affinity.hpp"
#include "threadmap/topology.hpp"

namespace threadmap {
namespace detail {
namespace {

std::vector<int> to_cpus(const CpuSet& set) {
  std::vector<int> cpus;
  for (int cpu = set.first(); cpu >= 0; cpu = set.next(cpu)) cpus.push_back(cpu);
  return cpus;
}

CpuSet from_cpus(const std::vector<int>& cpus) {
  CpuSet set;
  for (int cpu : cpus) set.add(cpu);
  return set;
}

Result<CpuSet> read_tid_affinity(pid_t tid) {
  std::vector<int> cpus;
  if (int e = os::get_tid_affinity(tid, cpus); e != 0)
    return Error::from_errno(
        e, "cannot read the affinity of " +
               (tid == 0 ? std::string("the calling thread") : "tid " + std::to_string(tid)) +
               ": " + std::strerror(e));
  return from_cpus(cpus);
}

CpuSet capture_startup_affinity() {
  auto r = read_tid_affinity(os::current_pid());
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

pid_t current_tid() { return os::current_tid(); }
int current_cpu() { return os::current_cpu(); }

Status pin_tid(pid_t tid, const CpuSet& cpus, const CpuSet& allowed) {
  std::string who = tid_label(tid);
  if (auto st = check_request(who, cpus, allowed); !st) return st;
  if (int e = os::set_tid_affinity(tid, detail::to_cpus(cpus)); e != 0)
    return Error::from_errno(
        e, "cannot pin " + who + " to " + cpus.to_list() + ": " + std::strerror(e));
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
  if (int rc = os::set_thread_affinity(thread, detail::to_cpus(cpus)); rc != 0)
    return Error::from_errno(rc,
                             "cannot pin thread to " + cpus.to_list() + ": " + std::strerror(rc));
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
  std::vector<int> cpus;
  if (int rc = os::get_thread_affinity(thread, cpus); rc != 0)
    return Error::from_errno(rc, std::string("cannot read thread affinity: ") + std::strerror(rc));
  return detail::from_cpus(cpus);
}

}  // namespace threadmap
