#include "src/experiments/variant_placement.hpp"

#include "src/plan/machine_model.hpp"
#include "src/plan/topology_steps.hpp"

namespace threadmap::experiments {

std::optional<CpuPair> smt_sibling_pair(const Topology& topo, const CpuSet& allowed) {
  for (const CpuSet& core : topo.groups(Level::core)) {
    std::vector<int> usable = (core & allowed).to_vector();
    if (usable.size() >= 2) return CpuPair{usable[0], usable[1]};
  }
  return std::nullopt;
}

namespace {

// How far apart two CPUs are: the planner's estimated latency, then the shared level, so that
// equal estimates (every cross-NUMA pair costs the same) still order another package farther
// than another NUMA node of the same package.
using Distance = std::pair<double, int>;

// The model is built once per search (plan::topology_distance_ns would rebuild the topology's
// level chains on every call: minutes for all pairs of a 384-CPU machine under a sanitizer).
Distance distance(const Topology& topo, const plan::TopologySteps& steps, int cpu_a, int cpu_b) {
  return {steps.distance_ns(cpu_a, cpu_b), static_cast<int>(topo.shared_level(cpu_a, cpu_b))};
}

// Best pair by a comparison of distances; `better(d, best)` decides. Ties keep the lowest CPUs
// because the loops run in increasing order and only a strictly better pair replaces.
template <class Better, class Accept>
std::optional<CpuPair> best_pair(const Topology& topo, const CpuSet& allowed, Better better,
                                 Accept accept) {
  const std::vector<int> cpus = allowed.to_vector();
  const plan::TopologyDistances distances{};  // the defaults plan::topology_distance_ns uses
  const plan::TopologySteps steps(topo, distances);
  std::optional<CpuPair> best;
  Distance best_distance{};
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    for (std::size_t j = i + 1; j < cpus.size(); ++j) {
      if (!accept(cpus[i], cpus[j])) continue;
      const Distance d = distance(topo, steps, cpus[i], cpus[j]);
      if (!best || better(d, best_distance)) {
        best = CpuPair{cpus[i], cpus[j]};
        best_distance = d;
      }
    }
  }
  return best;
}

}  // namespace

std::optional<CpuPair> nearest_pair_on_two_cores(const Topology& topo, const CpuSet& allowed) {
  return best_pair(
      topo, allowed, [](const Distance& d, const Distance& best) { return d < best; },
      [&](int a, int b) { return !topo.smt_siblings(a).contains(b); });
}

std::optional<CpuPair> farthest_pair(const Topology& topo, const CpuSet& allowed) {
  return best_pair(
      topo, allowed, [](const Distance& d, const Distance& best) { return d > best; },
      [](int, int) { return true; });
}

std::vector<int> core_slots(const Topology& topo, const CpuSet& allowed, int cpu) {
  std::vector<int> slots{cpu};
  for (int sibling : (topo.smt_siblings(cpu) & allowed).to_vector()) {
    if (sibling != cpu && slots.size() < 2) slots.push_back(sibling);
  }
  if (slots.size() == 2 && slots[1] < slots[0]) std::swap(slots[0], slots[1]);
  return slots;
}

std::string describe_cpus(const CpuSet& cpus) {
  if (cpus.empty()) return "not pinned";
  return (cpus.count() == 1 ? "CPU " : "CPUs ") + cpus.to_list();
}

}  // namespace threadmap::experiments
