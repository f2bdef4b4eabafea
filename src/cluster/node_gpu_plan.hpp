// Every rank of one node with GPUs, planned together when no launcher variable names the GPUs:
// which GPUs each rank drives and which CPUs it gets, so that the whole node is shared out.
// - GPUs: with fewer ranks than GPU slots (per_rank GPUs each, in bus order) the ranks' slots
//   are spread over the node (rank i takes slot i x slots / ranks), not 0..R-1 crowding one
//   socket; with more ranks than slots, consecutive ranks share a slot (rank r takes slot
//   r x slots / ranks), as mpibind's one-task-per-core mappings and MPS do.
// - CPUs: each rank's home is the NUMA node(s) of its GPUs (ranks whose GPUs share nodes share
//   a home); a home's CPUs are split between the ranks there (split_shares, each rank the part
//   nearest its GPU); NUMA nodes with no GPU go whole to the nearest home (same package first,
//   then the home with the fewest CPUs so far, then the nearest in NUMA order) and are split
//   between its ranks too. So every allowed CPU is in some share, a lone rank gets the node.
// Shares never overlap unless a home has fewer CPUs than ranks; then a note says so.
#pragma once

#include <string>
#include <vector>

#include "src/cluster/rank_share.hpp"
#include "src/core/devices.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::cluster {

/// One rank of the node.
struct NodeRank {
  std::vector<const Device*> gpus;  ///< per_rank GPUs (pointers into the device list)
  RankShare share;
};

struct NodeGpuPlan {
  std::vector<NodeRank> ranks;     ///< in local rank order
  std::vector<std::string> notes;  ///< GPUs shared, CPUs shared, GPUs outside the allowed CPUs
};

/// How ranks take GPU slots: spread (above), or rank r slot r (torchrun: the program addresses
/// GPU LOCAL_RANK; EINVAL when ranks x per_rank exceed the GPUs).
enum class SlotOrder { spread, by_rank };

/// Plans `ranks` ranks with `per_rank` GPUs each over `allowed` (rules above). EINVAL: no GPU in
/// `devices`, per_rank < 1 or more than the node's GPUs, ranks < 1, `allowed` empty.
Result<NodeGpuPlan> plan_node_gpus(const Topology& topo, const std::vector<Device>& devices,
                                   const CpuSet& allowed, int ranks, int per_rank,
                                   SlotOrder order = SlotOrder::spread);

}  // namespace threadmap::cluster
