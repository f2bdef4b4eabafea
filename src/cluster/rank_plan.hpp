// `threadmap plan --ranks N` checked and as one call: the machine (or another one's hwloc XML)
// loaded, the CPUs to split resolved, the shares of N ranks taken and, when asked, written the
// way a launcher takes them (rank_export). plan_command_request() checks the whole `plan`
// command line into one of its two forms (this one, or plan::plan_request's thread plan). The
// CLI prints what comes back.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/cluster/gpu_share.hpp"
#include "src/cluster/rank_export.hpp"
#include "src/cluster/rank_share.hpp"
#include "src/plan/plan_request.hpp"
#include "threadmap/result.hpp"

namespace threadmap::cluster {

/// `plan --ranks N`, checked.
struct RankPlanRequest {
  int ranks = 0;              ///< N: how many shares
  std::string topology_file;  ///< hwloc XML of the node; empty: this machine
  std::string allowed;        ///< CPU expression to split; empty: the topology's allowed CPUs
  std::optional<RankExport> format;  ///< export the shares for a launcher; nullopt: do not
  std::string host;  ///< the node's name in a rankfile; empty: this host ("localhost" if none)
  int gpus = 0;      ///< GPUs per rank: each rank next to its GPUs (place_node_with_gpus); 0: none
  GpuVisibility gpu_visibility = GpuVisibility::narrow;  ///< what each rank's program sees
};

/// Checks the rank form of `options` (options.ranks > 0). Refuses with Fault::input, naming the
/// member: a spec, pairs or threads (a form of their own); a latency matrix, reserved CPUs or an
/// output file (a node's CPUs are split, nothing is planned on them); an export format that is
/// not a rank format; an empty allowed set.
Result<RankPlanRequest> rank_plan_request(const plan::PlanOptions& options);

struct PlanCommand;
Result<PlanCommand> plan_command_request(const plan::PlanOptions& options);

/// `threadmap plan` checked: exactly one of its two forms is set. Made only by
/// plan_command_request (no public constructor).
struct PlanCommand {
 private:
  friend Result<PlanCommand> plan_command_request(const plan::PlanOptions& options);
  PlanCommand() = default;

 public:
  std::optional<plan::PlanRequest> thread_plan;  ///< a thread plan (no rank count given)
  std::optional<RankPlanRequest> rank_plan;      ///< rank shares (a rank count given)
};

/// rank_plan_request with a rank count, else plan::plan_request; and the rule between them: an
/// export format only rank shares have needs a rank count (Fault::input about export_format).
Result<PlanCommand> plan_command_request(const plan::PlanOptions& options);

/// The shares.
struct RankPlan {
  std::vector<RankShare> shares;        ///< in rank order
  std::vector<GpuPlacement> gpu_ranks;  ///< with gpus: each rank's GPUs, NIC, variables
  std::string exported;                 ///< the launcher's text with a format; "" without
};

/// Loads the topology (an unreadable file is the work's fault, about `topology_file`), resolves
/// `allowed` on it (Fault::input about `allowed`), splits it into `ranks` shares (split_shares;
/// Fault::input about `ranks`) -- or with `gpus`, places every rank next to its GPUs as `run
/// --ranks --gpus` would with no launcher variable (place_node_with_gpus; Fault::input about
/// `gpus`) -- and exports them when a format is given.
Result<RankPlan> plan_ranks(const RankPlanRequest& request);

}  // namespace threadmap::cluster
