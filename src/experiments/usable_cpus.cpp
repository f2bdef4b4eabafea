// Which CPUs the experiments may use.
#include "src/experiments/experiments.hpp"
#include "threadmap/affinity.hpp"

namespace threadmap::experiments {

Result<CpuSet> usable_cpus(const Topology& topo) {
  if (!topo.is_this_machine())
    return Error::invalid("cannot run experiments on '" + topo.source() +
                          "': benchmarks need this machine, not a topology file");
  Result<CpuSet> process_allowed = allowed_cpus();
  if (!process_allowed) return process_allowed.error();
  CpuSet usable = topo.allowed_cpus() & *process_allowed;
  if (usable.empty())
    return Error::invalid("no CPU is usable: the topology allows " + topo.allowed_cpus().to_list() +
                          " and this process " + process_allowed->to_list());
  return usable;
}

}  // namespace threadmap::experiments
