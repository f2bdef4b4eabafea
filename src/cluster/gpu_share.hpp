// A rank placed next to its GPU: its GPUs (rank_gpus), an exclusive share of the CPUs local to
// them, its memory on the GPU's NUMA node, and the fastest NIC near it named for the communication
// libraries. One pure function of the topology, the device list and the environment, shared by
// `run --ranks --gpus` (this rank) and `plan --ranks N --gpus` (every rank of a node).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/cluster/launcher_env.hpp"
#include "src/cluster/nic_choice.hpp"
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
  std::optional<Device> nic;  ///< the fastest NIC near the GPU; none when no fast NIC is near
  std::string nic_how;        ///< why that NIC, or why none
  /// Variables for the program: the visible devices (when threadmap chose the GPUs) and the NIC
  /// (those the environment already sets are kept and not listed here).
  std::vector<std::pair<std::string, std::string>> set_env;
  std::vector<std::string> notes;  ///< how variables were read, fallbacks taken
};

/// Places local rank `id` with `per_rank` GPUs on `topo`:
/// - GPUs and CPUs, when no variable names the GPUs: the node planned as a whole
///   (plan_node_gpus: GPUs spread, every allowed CPU in a share, ranks sharing GPUs when they
///   outnumber them); under torchrun rank r keeps GPU r (its program addresses GPU LOCAL_RANK);
/// - GPUs when a variable names them: assign_gpus; the CPUs local to them are split between
///   the ranks taken to sit there (every rank's GPUs when one list names them all, else local
///   rank r driving GPU r mod the GPUs, the launchers' round robin, said in a note);
/// - CPUs when the launcher already bound the rank (its allowed CPUs are strictly inside the
///   cgroup's, and the rank is not explicit): that binding is kept;
/// - memory: the GPUs' NUMA node(s), else the share's nodes;
/// - NIC: choose_nic for the first GPU, its variables from nic_env.
/// Refusals (EINVAL with the rule) are visible_gpus's, assign_gpus's and plan_node_gpus's.
/// `allowed` and `cgroup` are the CPUs this process may use and those its cgroup allows (the
/// topology's own, or this machine's when the topology is a recording of it).
Result<GpuPlacement> place_with_gpus(const Topology& topo, const std::vector<Device>& devices,
                                     const Environment& env, const RankIdentity& id, int per_rank,
                                     const CpuSet& allowed, const CpuSet& cgroup,
                                     const GpuChoice& choice = {});

/// Every rank of a node as `plan --ranks N --gpus K` shows it: plan_node_gpus over `allowed`,
/// each rank's variables, memory and NIC as place_with_gpus gives them. Refusals are
/// plan_node_gpus's.
Result<std::vector<GpuPlacement>> place_node_with_gpus(const Topology& topo,
                                                       const std::vector<Device>& devices,
                                                       const CpuSet& allowed, int ranks,
                                                       int per_rank, const GpuChoice& choice = {});

}  // namespace threadmap::cluster
