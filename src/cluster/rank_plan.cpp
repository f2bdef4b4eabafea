#include "src/cluster/rank_plan.hpp"

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
  auto shares = split_shares(*topo, allowed, request.ranks);
  if (!shares) return refused(shares.error(), RankPlanField::ranks);
  RankPlan plan;
  plan.shares = std::move(*shares);
  if (request.format) {
    std::string host = request.host.empty() ? os::host_name() : request.host;
    plan.exported = export_ranks(plan.shares, *request.format, host.empty() ? "localhost" : host);
  }
  return plan;
}

}  // namespace threadmap::cluster
