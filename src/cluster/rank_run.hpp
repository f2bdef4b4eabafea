// `threadmap run --ranks`: this rank's identity and share turned into the run request, so the
// rank's threads are placed inside its share by the same policy/plan machinery as any run.
#pragma once

#include <string>

#include "src/apply/run_request.hpp"
#include "src/cluster/launcher_env.hpp"
#include "src/cluster/rank_share.hpp"
#include "threadmap/result.hpp"

namespace threadmap::cluster {

/// Where this rank runs.
struct RankPlacement {
  std::string host;
  RankIdentity id;
  RankShare share;
  CpuSet allowed;                  ///< what this process could use before the split
  bool memory_from_share = false;  ///< --mem was not given: memory bound to the share's nodes
  std::vector<CpuSet> cores;       ///< the node's cores within `allowed`
  std::vector<RecordNumaNode> numa_nodes;  ///< the node's NUMA nodes (OS numbers)
};

/// Resolves `ranks` ("auto" or "K/N") from this process's environment and this machine,
/// takes the share, and rewrites `request`: with no plan the threads are spread over the share
/// (request.cpus = the share, by request.policy); with a plan, its CPUs must lie inside the
/// share (request.within); with no memory policy, memory is bound to the share's NUMA nodes.
/// `request` has no CPU list (apply::run_request refuses one with ranks). A rank that cannot be
/// known or placed is Fault::input about `ranks`. The calling thread is pinned to the share,
/// so a program started afterwards begins inside it (before any preload constructor runs).
Result<RankPlacement> place_rank(apply::RunRequest& request, const std::string& ranks);

/// The record `run --ranks --record` writes for this rank, without its watch.
RankRecord make_record(const RankPlacement& placement, int exit_status);

/// The --verbose line, like Open MPI's --report-bindings:
/// "host vm rank 1/2 (openmpi, global 1): CPUs 1 [split by cores], memory nodes 0".
std::string describe_placement(const RankPlacement& placement);

}  // namespace threadmap::cluster
