// The share of a node's CPUs (and the memory nodes under them) that one rank takes.
#pragma once

#include <string>
#include <vector>

#include "src/cluster/launcher_env.hpp"
#include "src/cluster/rank_record.hpp"
#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::cluster {

/// What one rank gets.
struct RankShare {
  CpuSet cpus;                    ///< where this rank's threads go
  std::vector<int> memory_nodes;  ///< OS numbers of the NUMA nodes under `cpus` (empty: unknown)
  ShareSource source = ShareSource::split;
  std::string how;  ///< one phrase: the level it was split at, or why it was kept
};

/// Splits `cpus` into `ranks` shares along the memory hierarchy of `topo`: whole NUMA nodes
/// when the node count and the rank count divide one another, then whole L3 domains the same
/// way, then whole cores in order (a core's SMT siblings stay together), and only when there
/// are more ranks than cores, single PUs; more ranks than PUs share PUs round-robin. Shares
/// are returned in rank order. Fails with EINVAL when `cpus` is empty or `ranks` < 1.
Result<std::vector<RankShare>> split_shares(const Topology& topo, const CpuSet& cpus, int ranks);

/// This process's share: when the launcher already bound it (its allowed CPUs are a strict
/// subset of what the cgroup allows: mpirun --bind-to, srun --cpu-bind), that binding is kept;
/// otherwise split_shares(allowed, local_size)[local_rank]. The launcher name decides the
/// source "explicit" for K/N given on the command line.
Result<RankShare> take_share(const Topology& topo, const RankIdentity& id);

/// OS numbers of the NUMA nodes whose CPUs meet `cpus`, ascending (empty when none known).
std::vector<int> memory_nodes_of(const Topology& topo, const CpuSet& cpus);

}  // namespace threadmap::cluster
