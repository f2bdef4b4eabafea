#include "src/cluster/gpu_share.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "src/cluster/rank_gpus.hpp"

namespace threadmap::cluster {
namespace {

CpuSet local_cpus(const std::vector<const Device*>& gpus, const CpuSet& allowed) {
  CpuSet out;
  for (const Device* g : gpus) out |= g->cpus;
  return out & allowed;
}

// Which of `ranks` (each a list of GPUs) sit on the same CPUs as `mine`, and where mine is
// among them.
std::pair<int, int> peers(const std::vector<std::vector<const Device*>>& ranks, size_t mine,
                          const CpuSet& allowed) {
  const CpuSet here = local_cpus(ranks[mine], allowed);
  int count = 0, position = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (local_cpus(ranks[r], allowed) != here) continue;
    if (r == mine) position = count;
    ++count;
  }
  return {count, position};
}

std::vector<std::vector<const Device*>> chunks(const std::vector<const Device*>& gpus, size_t per) {
  std::vector<std::vector<const Device*>> out;
  for (size_t i = 0; i < gpus.size(); i += per)
    out.emplace_back(gpus.begin() + static_cast<long>(i),
                     gpus.begin() + static_cast<long>(std::min(gpus.size(), i + per)));
  return out;
}

std::string node_list(const std::vector<int>& nodes) {
  std::string out;
  for (int n : nodes) out += (out.empty() ? "" : ",") + std::to_string(n);
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> nic_env(const Device& nic, const Environment& env,
                                                         std::vector<std::string>* kept) {
  std::vector<std::pair<std::string, std::string>> wanted;
  if (!nic.rdma.empty()) {
    // UCX takes DEVICE:PORT; an HCA's first port is 1. NCCL_IB_HCA's leading '=' asks for this
    // exact name (without it mlx5_1 would also match mlx5_10).
    wanted = {{"UCX_NET_DEVICES", nic.rdma.front() + ":1"},
              {"NCCL_IB_HCA", "=" + nic.rdma.front()}};
  } else if (!nic.netdevs.empty()) {
    wanted = {{"UCX_NET_DEVICES", nic.netdevs.front()},
              {"NCCL_SOCKET_IFNAME", "=" + nic.netdevs.front()}};
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& [name, value] : wanted) {
    auto it = env.find(name);
    if (it != env.end()) {
      if (kept) kept->push_back(name + "=" + it->second + " kept from the environment");
      continue;
    }
    out.emplace_back(name, value);
  }
  return out;
}

Result<GpuPlacement> place_with_gpus(const Topology& topo, const std::vector<Device>& devices,
                                     const Environment& env, const RankIdentity& id, int per_rank,
                                     const CpuSet& allowed, const CpuSet& cgroup,
                                     const GpuChoice& choice) {
  auto assigned = assign_gpus(devices, env, id, per_rank, choice);
  if (!assigned) return assigned.error();
  GpuPlacement p;
  for (const Device* g : assigned->mine) p.gpus.push_back(*g);
  p.gpus_how = assigned->how;
  p.set_env = assigned->set_env;
  p.notes = assigned->notes;
  const CpuSet near = local_cpus(assigned->mine, allowed);
  const bool launcher_bound = id.launcher != "explicit" && allowed != cgroup && !allowed.empty() &&
                              (allowed - cgroup).empty();
  if (launcher_bound) {
    p.share.cpus = allowed;
    p.share.memory_nodes = memory_nodes_of(topo, allowed);
    p.share.source = ShareSource::launcher;
    p.share.how = "the launcher's binding kept (affinity " + allowed.to_list() +
                  " is inside the cgroup's " + cgroup.to_list() + ")";
    if ((p.share.cpus & near).empty())
      p.notes.push_back("the launcher bound this rank to CPUs " + p.share.cpus.to_list() +
                        ", none of them local to its GPU (" + near.to_list() + ")");
  } else if (near.empty()) {
    auto shares = split_shares(topo, allowed, id.local_size);
    if (!shares) return shares.error();
    p.share = (*shares)[static_cast<size_t>(id.local_rank)];
    CpuSet gpu_cpus;
    for (const Device* g : assigned->mine) gpu_cpus |= g->cpus;
    p.notes.push_back("the GPU's local CPUs " + gpu_cpus.to_list() +
                      " are not among the CPUs allowed here (" + allowed.to_list() +
                      "): the share is split from the allowed CPUs instead");
  } else {
    const size_t per = static_cast<size_t>(per_rank);
    std::pair<int, int> where;
    if (!assigned->node_gpus.empty()) {
      where = peers(chunks(assigned->node_gpus, per), static_cast<size_t>(id.local_rank), allowed);
    } else {
      // Each rank was given its own GPU: the other ranks' are unknown, so the CPUs are split
      // between every GPU that sits on them.
      std::vector<const Device*> there;
      for (const Device* g : compute_gpus(devices))
        if ((g->cpus & allowed) == near ||
            std::find(assigned->mine.begin(), assigned->mine.end(), g) != assigned->mine.end())
          there.push_back(g);
      auto groups = chunks(there, per);
      size_t mine = 0;
      for (size_t i = 0; i < groups.size(); ++i)
        if (std::find(groups[i].begin(), groups[i].end(), assigned->mine.front()) !=
            groups[i].end())
          mine = i;
      // More ranks on the node than GPUs to give each its own: the launcher made ranks share
      // GPUs (one CUDA_VISIBLE_DEVICES for several). Each rank sees only its own variables, so
      // the sharers are counted from the node's ranks and GPUs, local rank r driving GPU r mod
      // the GPUs (the round-robin launchers and their wrapper scripts use), and the GPU's
      // CPUs are split between them instead of given whole to each.
      const int slots =
          std::max(1, static_cast<int>(compute_gpus(devices).size() / std::max<size_t>(per, 1)));
      const int sharers = id.local_size > slots ? (id.local_size + slots - 1) / slots : 1;
      const int slot = std::min(id.local_rank / slots, sharers - 1);
      if (sharers > 1)
        p.notes.push_back(fmt::format(
            "{} ranks on this node and {} GPU slot(s): ranks share their GPU, so its local CPUs "
            "are split between the {} ranks taken to drive it (local rank r drives GPU r mod "
            "{}); this rank takes part {}",
            id.local_size, slots, sharers, slots, slot + 1));
      where = {static_cast<int>(groups.size()) * sharers, static_cast<int>(mine) * sharers + slot};
    }
    auto shares = split_shares(topo, near, where.first);
    if (!shares) return shares.error();
    p.share = (*shares)[static_cast<size_t>(where.second)];
    p.share.source = id.launcher == "explicit" ? ShareSource::explicit_ : ShareSource::split;
    p.share.how = "the GPU's local CPUs " + near.to_list() +
                  (where.first == 1 ? std::string(", all of them")
                                    : ", split between " + std::to_string(where.first) +
                                          " ranks driving GPUs there (" + p.share.how + ")");
  }
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
  std::string why;
  const Device* nic = nearest_nic(devices, p.gpus.front(), &why);
  p.nic_how = why;
  if (nic) {
    p.nic = *nic;
    auto more = nic_env(*nic, env, &p.notes);
    p.set_env.insert(p.set_env.end(), more.begin(), more.end());
  }
  return p;
}

}  // namespace threadmap::cluster
