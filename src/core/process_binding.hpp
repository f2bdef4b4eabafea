// Whether this process was bound narrower than its cgroup allows: a launcher's binding (Slurm's
// task/affinity, Open MPI's default --bind-to core) or a taskset around us. A measurement that
// means to describe the machine (report, bench, latency) then measures a corner of it; this
// says so, with the launcher's own switch that measures the whole.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "threadmap/cpuset.hpp"
#include "threadmap/topology.hpp"

namespace threadmap {

/// This process's CPUs beside what its cgroup allows (docs/json.md, "binding").
struct ProcessBinding {
  CpuSet affinity;  ///< the CPUs this process was started on (its affinity at start)
  CpuSet cgroup;    ///< what its cgroup's cpuset allows (cpuset.cpus.effective, via hwloc)
  CpuSet machine;   ///< every CPU of the machine
  /// "slurm", "openmpi", "mpich" when the launcher's variables are set, else "".
  std::string launcher;
  /// The affinity is strictly inside the cgroup's CPUs: something bound us.
  bool narrower = false;
  /// The cgroup itself allows fewer CPUs than the machine has (a container, a job's share).
  bool confined = false;
  /// One line when `narrower` or `confined` ("" otherwise): what was bound, what it means for
  /// the numbers, and how to measure the whole (the launcher's switch).
  std::string finding;
};

/// Judges a process's startup `affinity` against what its `cgroup` allows and the `machine`'s
/// CPUs, naming the launcher from its variables in `environment`. Pure.
ProcessBinding binding_of(const CpuSet& affinity, const CpuSet& cgroup, const CpuSet& machine,
                          const std::vector<std::pair<std::string, std::string>>& environment);

/// binding_of() for this process: `this_machine` is Topology::load_this_machine() (its
/// allowed_cpus() are the cgroup's and the startup affinity's, cgroup_cpus() the cgroup's),
/// with this process's environment.
ProcessBinding this_process_binding(const Topology& this_machine);

}  // namespace threadmap
