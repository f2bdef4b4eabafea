#include "src/cluster/gpu_share.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "src/cluster/node_gpu_plan.hpp"
#include "src/cluster/rank_gpus.hpp"
#include "src/core/text.hpp"

namespace threadmap::cluster {
namespace {

CpuSet local_cpus(const std::vector<const Device*>& gpus, const CpuSet& allowed) {
  CpuSet out;
  for (const Device* g : gpus) out |= g->cpus;
  return out & allowed;
}

std::string gpu_indexes(const std::vector<const Device*>& gpus) {
  std::string out;
  for (const Device* g : gpus) out += (out.empty() ? "" : ",") + std::to_string(g->index);
  return out;
}

// Memory on the GPUs' nodes, and the NIC: the same on every path.
void finish(const Topology& topo, const std::vector<Device>& devices, const Environment& env,
            GpuPlacement& p) {
  std::vector<int> nodes;
  for (const Device& g : p.gpus)
    if (g.numa_node >= 0 && std::find(nodes.begin(), nodes.end(), g.numa_node) == nodes.end())
      nodes.push_back(g.numa_node);
  std::sort(nodes.begin(), nodes.end());
  if (!nodes.empty()) {
    p.share.memory_nodes = nodes;
  } else {
    p.notes.push_back(
        "the GPU has no NUMA node of its own (firmware -1, or local CPUs over "
        "several nodes): memory goes to the share's node(s) " +
        node_list(p.share.memory_nodes));
  }
  NicChoice choice = choose_nic(devices, nic_facts(topo, devices), p.gpus.front());
  p.nic_how = choice.why;
  if (choice.nic) {
    p.nic = *choice.nic;
    auto more = nic_env(choice, env, &p.notes);
    p.set_env.insert(p.set_env.end(), more.begin(), more.end());
  }
}

// Rank `r` of a node plan, before memory and NIC.
GpuPlacement from_node_plan(const NodeGpuPlan& plan, size_t r, const std::vector<Device>& devices,
                            const Environment& env, const GpuChoice& choice) {
  GpuPlacement p;
  const std::vector<const Device*>& mine = plan.ranks[r].gpus;
  for (const Device* g : mine) p.gpus.push_back(*g);
  p.gpus_how = "GPU " + gpu_indexes(mine) + " in " +
               (mine.empty() ? std::string("no order") : gpu_order_name(*mine.front())) +
               " for local rank " + std::to_string(r) + " of " + std::to_string(plan.ranks.size()) +
               ", the node planned as a whole";
  p.share = plan.ranks[r].share;
  p.notes = plan.notes;
  p.set_env = rank_visible_env(mine, compute_gpus(devices), choice, env, p.notes);
  return p;
}

void keep_launcher_binding(const CpuSet& allowed, const CpuSet& cgroup, const CpuSet& near,
                           const Topology& topo, GpuPlacement& p) {
  p.share.cpus = allowed;
  p.share.memory_nodes = memory_nodes_of(topo, allowed);
  p.share.source = ShareSource::launcher;
  p.share.how = "the launcher's binding kept (affinity " + allowed.to_list() +
                " is inside the cgroup's " + cgroup.to_list() + ")";
  if ((p.share.cpus & near).empty())
    p.notes.push_back("the launcher bound this rank to CPUs " + p.share.cpus.to_list() +
                      ", none of them local to its GPU (" + near.to_list() + ")");
}

// A rank given its own GPU(s) by a variable: the other ranks' GPUs are unknown, so the ranks on
// this GPU's CPUs are counted from the node's ranks, local rank r taken to drive GPU slot
// r mod the slots (the round robin launchers and their wrapper scripts use).
std::pair<int, int> modelled_peers(const std::vector<Device>& devices, const RankIdentity& id,
                                   size_t per, const CpuSet& near, const CpuSet& allowed,
                                   std::vector<std::string>& notes) {
  std::vector<const Device*> gpus = compute_gpus(devices);
  const size_t slots = std::max<size_t>(1, gpus.size() / std::max<size_t>(per, 1));
  int count = 0, position = -1;
  for (int r = 0; r < id.local_size; ++r) {
    const Device* model = gpus[(static_cast<size_t>(r) % slots) * per];
    if ((model->cpus & allowed) != near) continue;
    if (r == id.local_rank) position = count;
    ++count;
  }
  if (position < 0) position = count++;  // this rank's GPU is not where the model put it
  if (count > 1)
    notes.push_back(fmt::format(
        "{} of the node's {} ranks taken to sit on this GPU's CPUs (local rank r driving GPU "
        "slot r mod {}, the launchers' round robin): its local CPUs are split between them; this "
        "rank takes part {}",
        count, id.local_size, slots, position + 1));
  return {count, position};
}

// Which of `ranks` (each a list of GPUs) sit on the same CPUs as `mine`, and where mine is
// among them.
std::pair<int, int> listed_peers(const std::vector<const Device*>& node_gpus, size_t per,
                                 size_t mine, const CpuSet& allowed) {
  std::vector<std::vector<const Device*>> ranks;
  for (size_t i = 0; i < node_gpus.size(); i += per)
    ranks.emplace_back(node_gpus.begin() + static_cast<long>(i),
                       node_gpus.begin() + static_cast<long>(std::min(node_gpus.size(), i + per)));
  const CpuSet here = local_cpus(ranks[mine], allowed);
  int count = 0, position = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (local_cpus(ranks[r], allowed) != here) continue;
    if (r == mine) position = count;
    ++count;
  }
  return {count, position};
}

// The launcher named the GPUs: split their local CPUs between the ranks sitting there.
Status split_near(const Topology& topo, const std::vector<Device>& devices, const RankIdentity& id,
                  const GpuAssignment& assigned, size_t per, const CpuSet& near,
                  const CpuSet& allowed, GpuPlacement& p) {
  std::pair<int, int> where =
      !assigned.node_gpus.empty()
          ? listed_peers(assigned.node_gpus, per, static_cast<size_t>(id.local_rank), allowed)
          : modelled_peers(devices, id, per, near, allowed, p.notes);
  auto shares = split_shares(topo, near, where.first);
  if (!shares) return shares.error().as_bad_input("gpus");
  if (near.count() < static_cast<size_t>(where.first))
    p.notes.push_back(fmt::format(
        "{} ranks on the {} CPU(s) local to this GPU: the node cannot give each its own CPUs, so "
        "ranks share CPUs there",
        where.first, near.count()));
  p.share = (*shares)[static_cast<size_t>(where.second)];
  p.share.source = id.launcher == "explicit" ? ShareSource::explicit_ : ShareSource::split;
  p.share.how = "the GPU's local CPUs " + near.to_list() +
                (where.first == 1 ? std::string(", all of them")
                                  : ", split between " + std::to_string(where.first) +
                                        " ranks driving GPUs there (" + p.share.how + ")");
  return Status{};
}

}  // namespace

Result<GpuPlacement> place_with_gpus(const Topology& topo, const std::vector<Device>& devices,
                                     const Environment& env, const RankIdentity& id, int per_rank,
                                     const CpuSet& allowed, const CpuSet& cgroup,
                                     const GpuChoice& choice) {
  auto visible = visible_gpus(devices, env, choice.files);
  if (!visible) return visible.error();
  const bool launcher_bound = id.launcher != "explicit" && allowed != cgroup && !allowed.empty() &&
                              (allowed - cgroup).empty();
  const bool by_rank = id.launcher == "torchrun";
  GpuPlacement p;
  if (visible->variable.empty() && !by_rank) {
    auto plan =
        plan_node_gpus(topo, devices, launcher_bound ? cgroup : allowed, id.local_size, per_rank);
    if (!plan) return plan.error();
    p = from_node_plan(*plan, static_cast<size_t>(id.local_rank), devices, env, choice);
    if (launcher_bound)
      keep_launcher_binding(
          allowed, cgroup,
          local_cpus(plan->ranks[static_cast<size_t>(id.local_rank)].gpus, allowed), topo, p);
    if (id.launcher == "explicit") p.share.source = ShareSource::explicit_;
    finish(topo, devices, env, p);
    return p;
  }
  auto assigned = assign_gpus(devices, env, id, per_rank, choice);
  if (!assigned) return assigned.error();
  for (const Device* g : assigned->mine) p.gpus.push_back(*g);
  p.gpus_how = assigned->how;
  p.set_env = assigned->set_env;
  p.notes = assigned->notes;
  const CpuSet near = local_cpus(assigned->mine, allowed);
  if (launcher_bound) {
    keep_launcher_binding(allowed, cgroup, near, topo, p);
  } else if (near.empty()) {
    auto shares = split_shares(topo, allowed, id.local_size);
    if (!shares) return shares.error().as_bad_input("gpus");
    p.share = (*shares)[static_cast<size_t>(id.local_rank)];
    p.notes.push_back("the GPU's local CPUs " +
                      local_cpus(assigned->mine, topo.complete_cpus()).to_list() +
                      " are not among the CPUs allowed here (" + allowed.to_list() +
                      "): the share is split from the allowed CPUs instead");
  } else if (visible->variable.empty()) {
    // torchrun: rank r drives GPU r; the node is still shared out as a whole.
    auto plan = plan_node_gpus(topo, devices, allowed, id.local_size, per_rank, SlotOrder::by_rank);
    if (!plan) return plan.error();
    p.share = plan->ranks[static_cast<size_t>(id.local_rank)].share;
    p.notes.insert(p.notes.end(), plan->notes.begin(), plan->notes.end());
  } else if (auto st = split_near(topo, devices, id, *assigned, static_cast<size_t>(per_rank), near,
                                  allowed, p);
             !st) {
    return st.error();
  }
  finish(topo, devices, env, p);
  return p;
}

Result<std::vector<GpuPlacement>> place_node_with_gpus(const Topology& topo,
                                                       const std::vector<Device>& devices,
                                                       const CpuSet& allowed, int ranks,
                                                       int per_rank, const GpuChoice& choice) {
  auto plan = plan_node_gpus(topo, devices, allowed, ranks, per_rank);
  if (!plan) return plan.error();
  std::vector<GpuPlacement> out;
  for (size_t r = 0; r < plan->ranks.size(); ++r) {
    GpuPlacement p = from_node_plan(*plan, r, devices, {}, choice);
    if (r > 0) p.notes.clear();  // the node's notes, said once
    p.share.source = ShareSource::explicit_;
    finish(topo, devices, {}, p);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace threadmap::cluster
