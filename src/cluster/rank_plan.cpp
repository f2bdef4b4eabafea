#include "src/cluster/rank_plan.hpp"

#include "src/core/devices.hpp"
#include "src/os/host.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::cluster {
namespace {

RankPlan refused(Error error, RankPlanField field) {
  RankPlan plan;
  plan.refused = std::move(error);
  plan.refused_field = field;
  return plan;
}

// Every rank of the node as `run --ranks --gpus` places it when the launcher names no GPU.
Result<std::vector<GpuPlacement>> place_gpu_ranks(const Topology& topo, const CpuSet& allowed,
                                                  int ranks, int gpus) {
  DeviceInventory inventory = device_inventory(topo, /*management=*/false);
  std::vector<GpuPlacement> out;
  for (int r = 0; r < ranks; ++r) {
    RankIdentity id;
    id.local_rank = r;
    id.local_size = ranks;
    id.launcher = "explicit";
    auto placed = place_with_gpus(topo, inventory.devices, {}, id, gpus, allowed, allowed);
    if (!placed) return placed.error();
    out.push_back(std::move(*placed));
  }
  return out;
}

}  // namespace

RankPlan plan_ranks(const RankPlanRequest& request) {
  auto topo = request.topology_file.empty() ? Topology::load_this_machine()
                                            : Topology::load_xml(request.topology_file);
  if (!topo) return refused(topo.error(), RankPlanField::topology);
  CpuSet allowed = topo->allowed_cpus();
  if (!request.allowed.empty()) {
    auto resolved = topo->resolve(request.allowed);
    if (!resolved) return refused(resolved.error(), RankPlanField::allowed);
    allowed = *resolved;
  }
  RankPlan plan;
  if (request.gpus > 0) {
    auto placed = place_gpu_ranks(*topo, allowed, request.ranks, request.gpus);
    if (!placed) return refused(placed.error(), RankPlanField::gpus);
    plan.gpu_ranks = std::move(*placed);
    for (const GpuPlacement& g : plan.gpu_ranks) plan.shares.push_back(g.share);
  } else {
    auto shares = split_shares(*topo, allowed, request.ranks);
    if (!shares) return refused(shares.error(), RankPlanField::ranks);
    plan.shares = std::move(*shares);
  }
  if (request.format) {
    std::string host = request.host.empty() ? os::host_name() : request.host;
    plan.exported = export_ranks(plan.shares, plan.gpu_ranks, *request.format,
                                 host.empty() ? "localhost" : host);
  }
  return plan;
}

}  // namespace threadmap::cluster
