// `threadmap plan --ranks N` as one call: the machine (or another one's hwloc XML) loaded, the
// CPUs to split resolved, the shares of N ranks taken and, when asked, written the way a
// launcher takes them (rank_export). The CLI prints what comes back.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/cluster/gpu_share.hpp"
#include "src/cluster/rank_export.hpp"
#include "src/cluster/rank_share.hpp"
#include "threadmap/result.hpp"

namespace threadmap::cluster {

/// What `plan --ranks N` was asked for, as values.
struct RankPlanRequest {
  int ranks = 0;              ///< N: how many shares
  std::string topology_file;  ///< hwloc XML of the node; empty: this machine
  std::string allowed;        ///< CPU expression to split; empty: the topology's allowed CPUs
  std::optional<RankExport> format;  ///< export the shares for a launcher; nullopt: do not
  std::string host;  ///< the node's name in a rankfile; empty: this host ("localhost" if none)
  int gpus = 0;      ///< GPUs per rank: each rank next to its GPUs (place_with_gpus); 0: none
};

/// What a refusal is about: a value given that cannot work (the command line is wrong) or the
/// topology that could not be loaded (the work failed).
enum class RankPlanField { topology, allowed, ranks, gpus };

/// The shares, or why there are none.
struct RankPlan {
  std::optional<Error> refused;  ///< set: no shares; the message names the value, not a flag
  RankPlanField refused_field = RankPlanField::topology;  ///< with `refused`: what it is about
  std::vector<RankShare> shares;                          ///< in rank order
  std::vector<GpuPlacement> gpu_ranks;  ///< with gpus: each rank's GPUs, NIC, variables
  std::string exported;                 ///< the launcher's text with a format; "" without
};

/// Loads the topology (refused: topology), resolves `allowed` on it (allowed), splits it into
/// `ranks` shares (split_shares; ranks) -- or with `gpus`, places every rank next to its GPUs
/// as `run --ranks --gpus` would with no launcher variable (place_with_gpus; gpus) -- and
/// exports them when a format is given.
RankPlan plan_ranks(const RankPlanRequest& request);

}  // namespace threadmap::cluster
