// `threadmap run --ranks`: this rank's identity and share turned into the run request, so the
// rank's threads are placed inside its share by the same policy/plan machinery as any run.
#pragma once

#include <optional>
#include <string>

#include "src/apply/run_request.hpp"
#include "src/cluster/gpu_share.hpp"
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
  std::optional<GpuPlacement> gpu;         ///< with --gpus: the rank's GPUs, NIC, variables
  std::vector<RecordGpu> host_gpus;        ///< with --gpus: the node's GPUs (for the record)
};

/// What `run --ranks` takes besides the run request.
struct RankOptions {
  std::string ranks;  ///< "auto" or "K/N"
  int gpus = 0;       ///< GPUs per rank: place next to them (0: CPUs only)
  /// Decide from this hwloc XML instead of reading the machine (a recording of this machine with
  /// its devices, for a container that hides /sys/bus/pci): its CPUs must exist here.
  std::string topology_file;
  std::string gpu_visibility;  ///< "narrow" (also "") or "all-own-first" (parse_gpu_visibility)
};

/// Resolves `options.ranks` ("auto" or "K/N") from this process's environment and this machine,
/// takes the share, and rewrites `request` (a checked one: apply::run_request refused a CPU
/// list with ranks, and a recorded topology without GPUs): with no plan the threads are spread
/// over the share (request.cpus = the share, by request.policy); with a plan, its CPUs must lie
/// inside the share (request.within); with no memory policy, memory is bound to the share's
/// NUMA nodes. A rank that cannot be known or placed is Fault::input about `ranks`. With
/// options.gpus > 0 the share is cluster::place_with_gpus's (the rank's GPUs, CPUs local to
/// them, memory on their node, the nearest NIC) and the variables it names are set for the
/// program (request.environment); GPUs that cannot be placed as asked are Fault::input about
/// `gpus` (the fault as the GPU code found it), a recorded topology whose CPUs this machine
/// lacks Fault::input about `topology_file` (unreadable: the work's fault). The calling thread
/// is pinned to the share, so a program started afterwards begins inside it (before any
/// preload constructor runs).
Result<RankPlacement> place_rank(apply::RunRequest& request, const RankOptions& options);

/// The record `run --ranks --record` writes for this rank, without its watch.
RankRecord make_record(const RankPlacement& placement, int exit_status);

/// The --verbose line, like Open MPI's --report-bindings:
/// "host vm rank 1/2 (openmpi, global 1): CPUs 1 [split by cores], memory nodes 0".
std::string describe_placement(const RankPlacement& placement);

}  // namespace threadmap::cluster
