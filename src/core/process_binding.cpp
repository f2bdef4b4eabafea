// The binding check: the startup affinity against the cgroup's CPUs, and the launcher that most
// likely bound us, named by the variables it sets.
#include "src/core/process_binding.hpp"

#include "src/os/process.hpp"

namespace threadmap {
namespace {

bool has(const std::vector<std::pair<std::string, std::string>>& env, const char* name) {
  for (const auto& [key, value] : env)
    if (key == name) return true;
  return false;
}

// The innermost launcher first (mpirun inside a Slurm allocation sets both).
std::string launcher_of(const std::vector<std::pair<std::string, std::string>>& env) {
  if (has(env, "OMPI_COMM_WORLD_RANK")) return "openmpi";
  if (has(env, "PMI_RANK") || has(env, "MPI_LOCALRANKID")) return "mpich";
  if (has(env, "SLURM_STEP_ID") || has(env, "SLURM_JOB_ID")) return "slurm";
  return "";
}

// Who bound us and the switch that does not: the launcher's own words.
std::string how_to_unbind(const std::string& launcher) {
  if (launcher == "slurm")
    return "Slurm's task binding; for the whole node: salloc --exclusive srun --cpu-bind=none";
  if (launcher == "openmpi") return "Open MPI's binding; for the whole node: mpirun --bind-to none";
  if (launcher == "mpich")
    return "the MPI launcher's binding; for the whole node: mpiexec -bind-to none";
  return "a taskset or launcher around it; start it unbound for the whole machine";
}

}  // namespace

ProcessBinding binding_of(const CpuSet& affinity, const CpuSet& cgroup, const CpuSet& machine,
                          const std::vector<std::pair<std::string, std::string>>& environment) {
  ProcessBinding b;
  b.affinity = affinity;
  b.cgroup = cgroup;
  b.machine = machine;
  b.launcher = launcher_of(environment);
  b.narrower = !b.affinity.empty() && b.affinity != b.cgroup && b.affinity.is_subset_of(b.cgroup);
  b.confined = !b.cgroup.empty() && b.cgroup != b.machine && b.cgroup.is_subset_of(b.machine);
  const std::size_t n = b.affinity.count();
  const std::string measures = "what follows measures " + std::to_string(n) +
                               (n == 1 ? " CPU" : " CPUs") + " of the " +
                               std::to_string(b.machine.count()) + " this machine has";
  if (b.narrower) {
    b.finding = "bound to " + std::string(n == 1 ? "CPU " : "CPUs ") + b.affinity.to_list() +
                " of the " + b.cgroup.to_list() + " its cgroup allows (" +
                how_to_unbind(b.launcher) + "): " + measures;
  } else if (b.confined) {
    b.finding = "its cgroup allows only CPUs " + b.cgroup.to_list() + " of this machine's " +
                b.machine.to_list() +
                (b.launcher == "slurm" ? " (the job's share; salloc --exclusive gives the node)"
                                       : " (a container's or a job's share)") +
                ": " + measures;
  }
  return b;
}

ProcessBinding this_process_binding(const Topology& this_machine) {
  return binding_of(this_machine.allowed_cpus(), this_machine.cgroup_cpus(),
                    this_machine.complete_cpus(), os::environment_variables());
}

}  // namespace threadmap
