#include "src/cluster/rank_plan.hpp"

#include "src/core/devices.hpp"
#include "src/core/given_cpus.hpp"
#include "src/os/host.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::cluster {

Result<RankPlanRequest> rank_plan_request(const plan::PlanOptions& o) {
  if (!o.spec_file.empty() || o.pairs > 0 || o.threads > 0)
    return Error::bad_input("ranks",
                            "rank shares are a form of their own: no spec file, pairs or threads");
  RankPlanRequest request;
  if (!o.export_format.empty()) {
    auto format = parse_rank_export(o.export_format);
    if (!format) return format.error().as_bad_input("export_format");
    request.format = *format;
  }
  for (auto [member, given] :
       {std::pair{"latency_file", !o.latency_file.empty()},
        std::pair{"reserved", !o.reserved.empty()}, std::pair{"output", !o.output.empty()}})
    if (given)
      return Error::bad_input(member,
                              "rank shares split a node's CPUs: a latency matrix, reserved CPUs "
                              "and a plan file do not apply");
  if (auto st = plan::check_allowed_given(o.allowed); !st) return st.error();
  request.ranks = o.ranks;
  request.topology_file = o.topology_file;
  request.allowed = o.allowed.value_or("");
  request.host = o.host;
  request.gpus = o.gpus;
  if (!o.gpu_visibility.empty()) {
    if (o.gpus <= 0)
      return Error::bad_input("gpu_visibility",
                              "which GPUs a rank's program sees goes with GPUs per rank (--gpus)");
    auto visibility = parse_gpu_visibility(o.gpu_visibility);
    if (!visibility) return visibility.error().as_bad_input("gpu_visibility");
    request.gpu_visibility = *visibility;
  }
  return request;
}

Result<PlanCommand> plan_command_request(const plan::PlanOptions& options) {
  PlanCommand command;
  if (options.ranks > 0) {
    auto ranks = rank_plan_request(options);
    if (!ranks) return ranks.error();
    command.rank_plan = std::move(*ranks);
    return command;
  }
  // A format only rank shares have, or none at all, is said with both lists in mind.
  const std::string& format = options.export_format;
  if (auto for_threads = plan::parse_export_format(format); !format.empty() && !for_threads) {
    if (parse_rank_export(format))
      return Error::bad_input("export_format",
                              "'" + format + "' exports rank shares: it needs a number of ranks");
    return Error::bad_input("export_format",
                            for_threads.error().message + " (for rank shares: slurm or rankfile)");
  }
  auto threads = plan::plan_request(options);
  if (!threads) return threads.error();
  command.thread_plan = std::move(*threads);
  return command;
}

Result<RankPlan> plan_ranks(const RankPlanRequest& request) {
  auto topo = request.topology_file.empty() ? Topology::load_this_machine()
                                            : Topology::load_xml(request.topology_file);
  if (!topo)
    return request.topology_file.empty() ? topo.error() : topo.error().about("topology_file");
  CpuSet allowed = topo->allowed_cpus();
  if (!request.allowed.empty()) {
    auto resolved = resolve_given_cpus(*topo, request.allowed, "allowed");
    if (!resolved) return resolved.error();
    allowed = *resolved;
  }
  RankPlan plan;
  if (request.gpus > 0) {
    DeviceInventory inventory = device_inventory(*topo, /*management=*/false);
    GpuChoice choice;
    choice.visibility = request.gpu_visibility;
    auto placed = place_node_with_gpus(*topo, inventory.devices, allowed, request.ranks,
                                       request.gpus, choice);
    // Whose fault it is was decided where the refusal was found (cluster/node_gpu_plan).
    if (!placed) return placed.error().about("gpus");
    plan.gpu_ranks = std::move(*placed);
    for (const GpuPlacement& g : plan.gpu_ranks) plan.shares.push_back(g.share);
  } else {
    auto shares = split_shares(*topo, allowed, request.ranks);
    if (!shares) return shares.error().as_bad_input("ranks");
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
