#include "src/cluster/rank_run.hpp"

#include "src/os/host.hpp"
#include "src/os/process.hpp"
#include "threadmap/affinity.hpp"

namespace threadmap::cluster {
namespace {

std::string node_list(const std::vector<int>& nodes) {
  std::string out;
  for (int n : nodes) out += (out.empty() ? "" : ",") + std::to_string(n);
  return out;
}

}  // namespace

Result<RankPlacement> place_rank(apply::RunRequest& request, const std::string& ranks) {
  Environment env;
  for (auto& kv : os::environment_variables()) env.insert(std::move(kv));
  // The rank given (or the launcher's word for it) that cannot be placed is the command line's
  // mistake: `auto` outside a launcher, K not below N, more ranks than the node has CPUs.
  auto id = resolve_ranks(ranks, env);
  if (!id) return id.error().as_bad_input("ranks");
  auto topo = Topology::load_this_machine();
  if (!topo) return topo.error();
  auto share = take_share(*topo, *id);
  if (!share) return share.error().as_bad_input("ranks");
  RankPlacement placement;
  placement.host = os::host_name();
  placement.id = *id;
  placement.share = *share;
  placement.allowed = topo->allowed_cpus();
  for (const CpuSet& core : topo->groups(Level::core))
    if (!(core & placement.allowed).empty()) placement.cores.push_back(core & placement.allowed);
  for (const NumaNode& n : topo->numa_nodes()) placement.numa_nodes.push_back({n.os_index, n.cpus});
  // Confine ourselves to the share before the program starts, so that it inherits the share
  // from its first instruction: loading a big MPI library takes a few hundred ms on a small
  // machine, all before the pin library's constructor runs, and would otherwise be spent on
  // other ranks' CPUs. The watch thread, started later, stays inside the share too.
  if (auto st = pin_current_thread(share->cpus); !st)
    return st.error().with_context("cannot confine the rank to its share " + share->cpus.to_list());
  if (request.plan_path.empty())
    request.cpus = share->cpus.to_list();
  else
    request.within = share->cpus;
  if (request.memory.empty() && !share->memory_nodes.empty()) {
    request.memory = "bind:" + node_list(share->memory_nodes);
    placement.memory_from_share = true;
  }
  return placement;
}

RankRecord make_record(const RankPlacement& p, int exit_status) {
  RankRecord r;
  r.host = p.host;
  r.rank = p.id.local_rank;
  r.ranks = p.id.local_size;
  r.global_rank = p.id.global_rank;
  r.launcher = p.id.launcher;
  r.share_source = p.share.source;
  r.share = p.share.cpus;
  r.memory_nodes = p.share.memory_nodes;
  r.allowed = p.allowed;
  r.cores = p.cores;
  r.numa_nodes = p.numa_nodes;
  r.exit_status = exit_status;
  return r;
}

std::string describe_placement(const RankPlacement& p) {
  std::string who = p.id.launcher;
  if (p.id.global_rank >= 0) who += ", global rank " + std::to_string(p.id.global_rank);
  std::string memory = p.share.memory_nodes.empty()
                           ? "memory nodes unknown"
                           : "memory nodes " + node_list(p.share.memory_nodes) +
                                 (p.memory_from_share ? " (bound)" : " (--mem given instead)");
  return "host " + (p.host.empty() ? std::string("?") : p.host) + " rank " +
         std::to_string(p.id.local_rank) + "/" + std::to_string(p.id.local_size) + " (" + who +
         "): CPUs " + p.share.cpus.to_list() + " [" + p.share.how + "], " + memory;
}

}  // namespace threadmap::cluster
