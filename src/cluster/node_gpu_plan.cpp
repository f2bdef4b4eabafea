#include "src/cluster/node_gpu_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace threadmap::cluster {
namespace {

// The node's NUMA nodes as CPU domains (within `allowed`, logical order), with the package each
// sits in; CPUs no NUMA node lists form one more domain.
struct Domains {
  std::vector<CpuSet> cpus;
  std::vector<int> os_index;  // -1 for the leftover domain
  std::vector<int> package;
};

Domains domains_of(const Topology& topo, const CpuSet& allowed) {
  Domains d;
  std::vector<NumaNode> nodes = topo.numa_nodes();
  std::sort(nodes.begin(), nodes.end(),
            [](const NumaNode& a, const NumaNode& b) { return a.logical_index < b.logical_index; });
  CpuSet covered;
  for (const NumaNode& n : nodes) {
    CpuSet part = (n.cpus & allowed) - covered;
    if (part.empty()) continue;
    covered |= part;
    d.cpus.push_back(part);
    d.os_index.push_back(n.os_index);
  }
  if (!(allowed - covered).empty()) {
    d.cpus.push_back(allowed - covered);
    d.os_index.push_back(-1);
  }
  const std::vector<CpuSet> packages = topo.groups(Level::package);
  for (const CpuSet& c : d.cpus) {
    int pkg = -1;
    for (size_t p = 0; p < packages.size() && pkg < 0; ++p)
      if (!(packages[p] & c).empty()) pkg = static_cast<int>(p);
    d.package.push_back(pkg);
  }
  return d;
}

// The domains a GPU calls home: its NUMA node's, else every domain its local CPUs meet (a GPU
// the firmware gave no node: hwloc attaches it above several).
std::vector<size_t> gpu_domains(const Domains& d, const Device& gpu) {
  std::vector<size_t> out;
  for (size_t i = 0; i < d.cpus.size(); ++i)
    if (gpu.numa_node >= 0 ? d.os_index[i] == gpu.numa_node : !(d.cpus[i] & gpu.cpus).empty())
      out.push_back(i);
  return out;
}

size_t root(std::vector<size_t>& parent, size_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

// Splits `cpus` between `ranks` (local rank numbers) and gives each the part that meets its GPUs
// most; `how` receives split_shares's phrase.
Status share_out(const Topology& topo, const CpuSet& cpus, const std::vector<int>& ranks,
                 std::vector<NodeRank>& out, std::string& how) {
  auto parts = split_shares(topo, cpus, static_cast<int>(ranks.size()));
  if (!parts) return parts.error();
  how = parts->front().how;
  std::vector<bool> used(parts->size(), false);
  // Ranks whose GPUs are local to the fewest CPUs choose first (a GPU with no NUMA node of its
  // own is local to many and can take what is left).
  std::vector<int> order = ranks;
  auto near_count = [&](int r) {
    CpuSet near;
    for (const Device* g : out[static_cast<size_t>(r)].gpus) near |= g->cpus;
    const size_t count = (near & cpus).count();
    return count == 0 ? cpus.count() + 1 : count;  // a GPU local to none of them: last
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return near_count(a) < near_count(b); });
  for (int r : order) {
    CpuSet near;
    for (const Device* g : out[static_cast<size_t>(r)].gpus) near |= g->cpus;
    size_t best = parts->size();
    for (size_t p = 0; p < parts->size(); ++p)
      if (!used[p] && (best == parts->size() ||
                       ((*parts)[p].cpus & near).count() > ((*parts)[best].cpus & near).count()))
        best = p;
    used[best] = true;
    out[static_cast<size_t>(r)].share.cpus |= (*parts)[best].cpus;
  }
  return Status{};
}

// GPU-less domains `extra` dealt to the ranks of a home: whole parts, at most one per rank.
Status deal_extra(const Topology& topo, const CpuSet& extra, const std::vector<int>& ranks,
                  std::vector<NodeRank>& out) {
  const int n = static_cast<int>(ranks.size());
  const int m = std::min(n, static_cast<int>(extra.count()));
  auto parts = split_shares(topo, extra, m);
  if (!parts) return parts.error();
  for (int j = 0; j < m; ++j)
    out[static_cast<size_t>(ranks[static_cast<size_t>(j * n / m)])].share.cpus |=
        (*parts)[static_cast<size_t>(j)].cpus;
  return Status{};
}

std::string node_names(const Domains& d, const std::vector<size_t>& which) {
  std::string out;
  for (size_t i : which)
    out += (out.empty() ? "" : ",") +
           (d.os_index[i] >= 0 ? std::to_string(d.os_index[i]) : std::string("(none)"));
  return out;
}

}  // namespace

namespace {

// Each home's CPUs split between its ranks, then its GPU-less domains dealt to them; the notes
// say where CPUs had to be shared.
Status share_homes(const Topology& topo, const Domains& d, const std::vector<bool>& is_home,
                   const std::vector<size_t>& owner, const std::vector<long>& home_of,
                   NodeGpuPlan& plan) {
  for (size_t h = 0; h < d.cpus.size(); ++h) {
    if (!is_home[h] || owner[h] != h) continue;
    std::vector<int> here;
    for (size_t r = 0; r < home_of.size(); ++r)
      if (owner[static_cast<size_t>(home_of[r])] == h) here.push_back(static_cast<int>(r));
    if (here.empty()) continue;
    CpuSet home, extra;
    std::vector<size_t> home_nodes, extra_nodes;
    for (size_t i = 0; i < d.cpus.size(); ++i) {
      if (owner[i] != h) continue;
      (is_home[i] ? home : extra) |= d.cpus[i];
      (is_home[i] ? home_nodes : extra_nodes).push_back(i);
    }
    std::string how;
    // More ranks than the home has CPUs: the GPU-less nodes are split with it, so that each rank
    // still has CPUs of its own (some of them not local to its GPU).
    const bool together = home.count() < here.size() && !extra.empty();
    if (together) {
      plan.notes.push_back(fmt::format(
          "{} ranks and {} CPU(s) on NUMA node(s) {}: some ranks get CPUs of NUMA node(s) {} "
          "instead, not local to their GPU",
          here.size(), home.count(), node_names(d, home_nodes), node_names(d, extra_nodes)));
      home |= extra;
      extra = CpuSet();
    }
    if (auto st = share_out(topo, home, here, plan.ranks, how); !st) return st;
    std::string text =
        "the GPUs' NUMA node(s) " + node_names(d, home_nodes) + " (" + home.to_list() + ")" +
        (together ? " with NUMA node(s) " + node_names(d, extra_nodes) : "") +
        (here.size() > 1 ? " " + how + " between " + std::to_string(here.size()) + " ranks" : "");
    if (!extra.empty()) {
      if (auto st = deal_extra(topo, extra, here, plan.ranks); !st) return st;
      text += ", with NUMA node(s) " + node_names(d, extra_nodes) + " (" + extra.to_list() +
              ", no GPU there) nearest them";
    }
    if (home.count() < here.size())
      plan.notes.push_back(fmt::format(
          "{} ranks on the {} CPU(s) of NUMA node(s) {}: the node cannot give each its own "
          "CPUs, so ranks share CPUs there",
          here.size(), home.count(), node_names(d, home_nodes)));
    for (int r : here) {
      RankShare& s = plan.ranks[static_cast<size_t>(r)].share;
      s.how = text;
      s.source = ShareSource::split;
      s.memory_nodes = memory_nodes_of(topo, s.cpus);
    }
  }
  return Status{};
}

// How many of `ranks` each slot gets when they outnumber the slots: in proportion to the CPUs
// of the slot's home (shared evenly between slots with the same home), largest remainders first,
// so that a GPU alone on a node takes as many ranks as two GPUs sharing one of the same size.
std::vector<int> ranks_per_slot(const std::vector<CpuSet>& homes, int ranks) {
  std::vector<double> weight;
  double total = 0;
  for (const CpuSet& h : homes) {
    const double same = static_cast<double>(std::count(homes.begin(), homes.end(), h));
    weight.push_back(std::max<double>(1, static_cast<double>(h.count())) / same);
    total += weight.back();
  }
  std::vector<int> out;
  std::vector<std::pair<double, size_t>> remainder;
  int given = 0;
  for (size_t s = 0; s < homes.size(); ++s) {
    const double exact = ranks * weight[s] / total;
    out.push_back(std::max(1, static_cast<int>(exact)));
    given += out.back();
    remainder.push_back({-(exact - static_cast<int>(exact)), s});
  }
  std::sort(remainder.begin(), remainder.end());
  for (size_t i = 0; given < ranks; i = (i + 1) % remainder.size(), ++given)
    ++out[remainder[i].second];
  while (given > ranks)  // slots bumped to one rank each: take back from the largest
    --*std::max_element(out.begin(), out.end()), --given;
  return out;
}

// Rank r's GPU slot: spread over the slots when ranks are fewer, consecutive ranks together
// when more (ranks_per_slot of them).
std::vector<std::vector<const Device*>> slots_of(const std::vector<const Device*>& gpus,
                                                 const Domains& d, int ranks, int per_rank,
                                                 SlotOrder order, NodeGpuPlan& plan) {
  const int slots = static_cast<int>(gpus.size()) / per_rank;
  std::vector<int> first_rank(static_cast<size_t>(slots) + 1, 0);
  if (ranks > slots) {
    std::vector<CpuSet> homes;
    for (int s = 0; s < slots; ++s) {
      CpuSet home;
      for (int g = s * per_rank; g < (s + 1) * per_rank; ++g)
        for (size_t i : gpu_domains(d, *gpus[static_cast<size_t>(g)])) home |= d.cpus[i];
      homes.push_back(home);
    }
    std::vector<int> count = ranks_per_slot(homes, ranks);
    for (int s = 0; s < slots; ++s)
      first_rank[static_cast<size_t>(s) + 1] =
          first_rank[static_cast<size_t>(s)] + count[static_cast<size_t>(s)];
  }
  std::vector<std::vector<const Device*>> out;
  for (int r = 0; r < ranks; ++r) {
    int s = 0;
    if (order == SlotOrder::by_rank)
      s = r;
    else if (ranks <= slots)
      s = static_cast<int>(static_cast<long>(r) * slots / ranks);
    else
      while (r >= first_rank[static_cast<size_t>(s) + 1]) ++s;
    out.emplace_back(gpus.begin() + s * per_rank, gpus.begin() + (s + 1) * per_rank);
  }
  if (ranks > slots)
    plan.notes.push_back(fmt::format(
        "{} ranks and {} GPU slot(s) of {} GPU(s): ranks share GPUs, consecutive ranks on one "
        "slot (in proportion to the CPUs of its NUMA node(s)), each on CPUs of its GPU's domain "
        "(NVIDIA MPS lets their kernels run at once)",
        ranks, slots, per_rank));
  else if (ranks < slots && order == SlotOrder::spread)
    plan.notes.push_back(fmt::format(
        "{} rank(s) and {} GPU slot(s): the ranks' GPUs are spread over the node (slot r x {} / "
        "{}); the other GPUs are given to no rank",
        ranks, slots, slots, ranks));
  return out;
}

// Where each rank's home is: the union of the domains of its GPUs, merged (union-find) where
// ranks' GPUs meet.
struct Homes {
  std::vector<size_t> parent;  // union-find over domains
  std::vector<long> home_of;   // a domain of each rank's home
  std::vector<bool> is_home;   // domains that are some rank's home
  bool homeless = false;       // no GPU local to the allowed CPUs: one home of everything
};

Homes find_homes(const Domains& d, const CpuSet& allowed, NodeGpuPlan& plan) {
  Homes h;
  h.parent.resize(d.cpus.size());
  std::iota(h.parent.begin(), h.parent.end(), 0);
  h.home_of.assign(plan.ranks.size(), -1);
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    std::vector<size_t> mine;
    for (const Device* g : plan.ranks[r].gpus)
      for (size_t i : gpu_domains(d, *g)) mine.push_back(i);
    for (size_t i : mine) h.parent[root(h.parent, i)] = root(h.parent, mine.front());
    if (!mine.empty()) h.home_of[r] = static_cast<long>(mine.front());
  }
  h.is_home.assign(d.cpus.size(), false);
  for (long at : h.home_of)
    if (at >= 0) h.is_home[root(h.parent, static_cast<size_t>(at))] = true;
  for (size_t i = 0; i < d.cpus.size(); ++i) h.is_home[i] = h.is_home[root(h.parent, i)];
  h.homeless = std::none_of(h.is_home.begin(), h.is_home.end(), [](bool b) { return b; });
  if (h.homeless) {
    for (size_t i = 0; i < d.cpus.size(); ++i) h.parent[i] = 0, h.is_home[i] = true;
    plan.notes.push_back("no GPU's local CPUs are among the allowed CPUs " + allowed.to_list() +
                         ": they are split between the ranks instead");
  }
  for (size_t r = 0; r < h.home_of.size(); ++r)
    if (h.home_of[r] < 0) {
      // This rank's GPUs sit outside the allowed CPUs: it joins the first home.
      h.home_of[r] = static_cast<long>(std::find(h.is_home.begin(), h.is_home.end(), true) -
                                       h.is_home.begin());
      if (!h.homeless)
        plan.notes.push_back("the GPU of local rank " + std::to_string(r) +
                             " has no local CPU among the allowed CPUs: the rank shares the "
                             "first home's CPUs");
    }
  return h;
}

// The home each domain's CPUs go to: a home domain its own root; a GPU-less domain the nearest
// home (same package first, then the home with the fewest CPUs so far, then the nearest in NUMA
// order).
std::vector<size_t> give_out_gpu_less_nodes(const Domains& d, Homes& h) {
  std::vector<size_t> owner(d.cpus.size());
  std::vector<size_t> home_cpus(d.cpus.size(), 0);
  for (size_t i = 0; i < d.cpus.size(); ++i)
    if (h.is_home[i]) owner[i] = root(h.parent, i), home_cpus[owner[i]] += d.cpus[i].count();
  for (size_t i = 0; i < d.cpus.size(); ++i) {
    if (h.is_home[i]) continue;
    auto key = [&](size_t home) {
      bool same_package = false;
      size_t gap = d.cpus.size();
      for (size_t j = 0; j < d.cpus.size(); ++j)
        if (h.is_home[j] && owner[j] == home) {
          same_package = same_package || (d.package[j] == d.package[i] && d.package[i] >= 0);
          gap = std::min(gap, j > i ? j - i : i - j);
        }
      return std::tuple{same_package ? 0 : 1, home_cpus[home], gap};
    };
    size_t best = d.cpus.size();
    for (size_t home = 0; home < d.cpus.size(); ++home)
      if (h.is_home[home] && owner[home] == home &&
          (best == d.cpus.size() || key(home) < key(best)))
        best = home;
    owner[i] = best;
    home_cpus[best] += d.cpus[i].count();
  }
  return owner;
}

}  // namespace

Result<NodeGpuPlan> plan_node_gpus(const Topology& topo, const std::vector<Device>& devices,
                                   const CpuSet& allowed, int ranks, int per_rank,
                                   SlotOrder order) {
  std::vector<const Device*> gpus = compute_gpus(devices);
  if (gpus.empty())
    return Error::bad_input("gpus", "no GPU found: the topology lists no NVIDIA, AMD or Intel GPU");
  if (per_rank < 1 || per_rank > static_cast<int>(gpus.size()))
    return Error::bad_input(
        "gpus",
        fmt::format("bad GPU count {} per rank: this node has {} GPU(s)", per_rank, gpus.size()));
  if (ranks < 1) return Error::bad_input("gpus", "bad rank count " + std::to_string(ranks));
  if (allowed.empty()) return Error::bad_input("gpus", "no CPUs to split between ranks");
  if (order == SlotOrder::by_rank && static_cast<size_t>(ranks * per_rank) > gpus.size())
    return Error::bad_input(
        "gpus", fmt::format("{} rank(s) x {} GPU(s) each need {} GPUs; this node has {}", ranks,
                            per_rank, ranks * per_rank, gpus.size()));
  NodeGpuPlan plan;
  const Domains d = domains_of(topo, allowed);
  // The GPUs local to the allowed CPUs are the node's for these ranks (a job restricted to one
  // NUMA node drives the GPUs there); when too few for one rank, every GPU.
  std::vector<const Device*> local;
  for (const Device* g : gpus)
    if (!(g->cpus & allowed).empty()) local.push_back(g);
  if (order == SlotOrder::spread && local.size() >= static_cast<size_t>(per_rank) &&
      local.size() < gpus.size()) {
    plan.notes.push_back(
        fmt::format("{} of the node's {} GPUs are local to the allowed CPUs {}: "
                    "the ranks drive those",
                    local.size(), gpus.size(), allowed.to_list()));
    gpus = local;
  }
  plan.ranks.resize(static_cast<size_t>(ranks));
  std::vector<std::vector<const Device*>> slot = slots_of(gpus, d, ranks, per_rank, order, plan);
  for (int r = 0; r < ranks; ++r)
    plan.ranks[static_cast<size_t>(r)].gpus = slot[static_cast<size_t>(r)];
  Homes homes = find_homes(d, allowed, plan);
  std::vector<size_t> owner = give_out_gpu_less_nodes(d, homes);
  const std::vector<bool>& is_home = homes.is_home;
  const std::vector<long>& home_of = homes.home_of;
  const bool homeless = homes.homeless;
  if (auto st = share_homes(topo, d, is_home, owner, home_of, plan); !st) return st.error();
  if (homeless)
    for (NodeRank& r : plan.ranks)
      r.share.how = "the allowed CPUs " + allowed.to_list() + ", none local to a GPU";
  return plan;
}

}  // namespace threadmap::cluster
