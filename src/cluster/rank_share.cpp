#include "src/cluster/rank_share.hpp"

#include <algorithm>

namespace threadmap::cluster {
namespace {

// The groups of one level that meet `cpus`, restricted to them, in hwloc's logical order
// (which follows the tree: a socket's nodes, caches and cores come before the next socket's).
std::vector<CpuSet> groups_within(const std::vector<CpuSet>& level, const CpuSet& cpus) {
  std::vector<CpuSet> out;
  for (const CpuSet& g : level) {
    CpuSet part = g & cpus;
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

std::vector<CpuSet> numa_groups(const Topology& topo) {
  std::vector<NumaNode> nodes = topo.numa_nodes();
  std::sort(nodes.begin(), nodes.end(),
            [](const NumaNode& a, const NumaNode& b) { return a.logical_index < b.logical_index; });
  std::vector<CpuSet> out;
  for (const NumaNode& n : nodes)
    if (!n.cpus.empty()) out.push_back(n.cpus);
  return out;
}

// Cores (SMT siblings together) inside `cpus`, in logical order; PUs the topology has no core
// for stand alone.
std::vector<CpuSet> cores_within(const Topology& topo, const CpuSet& cpus) {
  std::vector<CpuSet> cores = groups_within(topo.groups(Level::core), cpus);
  CpuSet covered;
  for (const CpuSet& c : cores) covered |= c;
  for (int cpu : (cpus - covered).to_vector()) cores.push_back(CpuSet::from_vector({cpu}));
  return cores;
}

// `units` (in order) dealt into `ranks` contiguous runs as equal as possible: the first
// (units % ranks) runs get one more.
std::vector<CpuSet> contiguous(const std::vector<CpuSet>& units, int ranks) {
  std::vector<CpuSet> out(static_cast<size_t>(ranks));
  const size_t n = units.size();
  size_t at = 0;
  for (size_t r = 0; r < out.size(); ++r) {
    size_t take = n / out.size() + (r < n % out.size() ? 1 : 0);
    for (size_t i = 0; i < take; ++i) out[r] |= units[at++];
  }
  return out;
}

struct Splitter {
  const Topology& topo;
  std::vector<std::vector<CpuSet>> levels;  // NUMA nodes, then L3 domains
  std::vector<std::string> names;

  // `how` collects the deepest level a split happened at, for the verbose line.
  std::vector<CpuSet> split(const CpuSet& cpus, int ranks, size_t level, std::string& how) const {
    if (ranks == 1) return {cpus};
    if (level < levels.size()) {
      std::vector<CpuSet> groups = groups_within(levels[level], cpus);
      const int g = static_cast<int>(groups.size());
      if (g > 1 && ranks % g == 0) {  // each group takes ranks/g ranks
        how = names[level];
        std::vector<CpuSet> out;
        for (const CpuSet& group : groups) {
          std::vector<CpuSet> inner = split(group, ranks / g, level + 1, how);
          out.insert(out.end(), inner.begin(), inner.end());
        }
        return out;
      }
      if (g > 1 && g % ranks == 0) {  // each rank takes g/ranks whole groups
        how = names[level];
        return contiguous(groups, ranks);
      }
      if (g <= 1) return split(cpus, ranks, level + 1, how);
      // Counts that do not divide: fall through to whole cores (some share crosses a boundary).
    }
    std::vector<CpuSet> cores = cores_within(topo, cpus);
    if (static_cast<int>(cores.size()) >= ranks) {
      if (how.empty()) how = "cores";
      return contiguous(cores, ranks);
    }
    // More ranks than cores: SMT siblings are split, one or more PUs each.
    std::vector<CpuSet> pus;
    for (const CpuSet& core : cores)
      for (int cpu : core.to_vector()) pus.push_back(CpuSet::from_vector({cpu}));
    if (static_cast<int>(pus.size()) >= ranks) {
      how = "PUs (more ranks than cores: SMT siblings split between ranks)";
      return contiguous(pus, ranks);
    }
    how = "PUs, shared (more ranks than CPUs: ranks share CPUs round-robin)";
    std::vector<CpuSet> out;
    for (int r = 0; r < ranks; ++r) out.push_back(pus[static_cast<size_t>(r) % pus.size()]);
    return out;
  }
};

}  // namespace

std::vector<int> memory_nodes_of(const Topology& topo, const CpuSet& cpus) {
  std::vector<int> out;
  for (const NumaNode& n : topo.numa_nodes())
    if (!(n.cpus & cpus).empty()) out.push_back(n.os_index);
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<RankShare>> split_shares(const Topology& topo, const CpuSet& cpus, int ranks) {
  if (cpus.empty()) return Error::invalid("no CPUs to split between ranks");
  if (ranks < 1) return Error::invalid("bad rank count " + std::to_string(ranks));
  Splitter splitter{
      topo, {numa_groups(topo), topo.groups(Level::l3)}, {"NUMA nodes", "L3 domains"}};
  std::string how;
  std::vector<CpuSet> parts = splitter.split(cpus, ranks, 0, how);
  std::vector<RankShare> out;
  for (const CpuSet& part : parts) {
    RankShare share;
    share.cpus = part;
    share.memory_nodes = memory_nodes_of(topo, part);
    share.source = ShareSource::split;
    share.how = ranks == 1 ? "the only rank: every allowed CPU"
                           : "split by " + (how.empty() ? std::string("cores") : how);
    out.push_back(std::move(share));
  }
  return out;
}

Result<RankShare> take_share(const Topology& topo, const RankIdentity& id) {
  const CpuSet allowed = topo.allowed_cpus();
  const CpuSet cgroup = topo.cgroup_cpus();
  if (id.launcher != "explicit" && allowed != cgroup && (allowed - cgroup).empty() &&
      !allowed.empty()) {
    RankShare kept;
    kept.cpus = allowed;
    kept.memory_nodes = memory_nodes_of(topo, allowed);
    kept.source = ShareSource::launcher;
    kept.how = "the launcher's binding kept (affinity " + allowed.to_list() +
               " is inside the cgroup's " + cgroup.to_list() + ")";
    return kept;
  }
  auto shares = split_shares(topo, allowed, id.local_size);
  if (!shares) return shares.error();
  RankShare mine = (*shares)[static_cast<size_t>(id.local_rank)];
  if (id.launcher == "explicit") mine.source = ShareSource::explicit_;
  return mine;
}

}  // namespace threadmap::cluster
