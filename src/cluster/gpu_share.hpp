// A rank placed next to its GPU: its GPUs (rank_gpus), an exclusive share of the CPUs local to
// them, its memory on the GPU's NUMA node, and the nearest NIC named for the communication
// libraries. One pure function of the topology, the device list and the environment, shared by
// `run --ranks --gpus` (this rank) and `plan --ranks N --gpus` (every rank of a node).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/cluster/launcher_env.hpp"
#include "src/cluster/rank_gpus.hpp"
#include "src/cluster/rank_share.hpp"
#include "src/core/devices.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::cluster {

/// Where one rank with GPUs goes.
struct GpuPlacement {
  std::vector<Device> gpus;   ///< the rank's GPUs (copies)
  std::string gpus_how;       ///< how they were chosen (rank_gpus's GpuAssignment::how)
  RankShare share;            ///< CPUs, memory nodes, source, how
  std::optional<Device> nic;  ///< the nearest NIC, when one is near
  std::string nic_how;        ///< why that NIC, or why none
  /// Variables for the program: the visible devices (when threadmap chose the GPUs) and the NIC
  /// (those the environment already sets are kept and not listed here).
  std::vector<std::pair<std::string, std::string>> set_env;
  std::vector<std::string> notes;  ///< how variables were read, fallbacks taken
};

/// The NIC variables for the communication libraries (UCX_NET_DEVICES, NCCL_IB_HCA or
/// NCCL_SOCKET_IFNAME; docs/gpu.md says why these): those `env` does not set already. `kept`
/// receives a note for each one the environment set.
std::vector<std::pair<std::string, std::string>> nic_env(const Device& nic, const Environment& env,
                                                         std::vector<std::string>* kept);

/// Places local rank `id` with `per_rank` GPUs on `topo`:
/// - GPUs: assign_gpus;
/// - CPUs: when the launcher already bound the rank (its allowed CPUs are strictly inside the
///   cgroup's, and the rank is not explicit) that binding is kept; otherwise the CPUs local to
///   the rank's GPUs (within the allowed CPUs) are split exclusively (split_shares: NUMA nodes,
///   L3 domains, cores) between the ranks whose GPUs sit there -- every rank's GPUs when all
///   can be known, else every GPU there -- and the rank takes its part;
/// - memory: the GPUs' NUMA node(s), else the share's nodes;
/// - NIC: nearest_nic of the first GPU, named through nic_env.
/// Refusals are assign_gpus's (EINVAL with the rule).
/// `allowed` and `cgroup` are the CPUs this process may use and those its cgroup allows (the
/// topology's own, or this machine's when the topology is a recording of it).
Result<GpuPlacement> place_with_gpus(const Topology& topo, const std::vector<Device>& devices,
                                     const Environment& env, const RankIdentity& id, int per_rank,
                                     const CpuSet& allowed, const CpuSet& cgroup,
                                     const GpuChoice& choice = {});

}  // namespace threadmap::cluster
