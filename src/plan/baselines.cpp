// The hand-made placements (see baselines.hpp).
#include "src/plan/baselines.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace threadmap::plan {
namespace {

// Candidates in hierarchy order: by each level's group (coarsest first), then CPU number.
std::vector<int> hierarchy_order(const MachineModel& m) {
  std::vector<int> order(m.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    for (const auto& level : m.levels)
      if (level[a] != level[b]) return level[a] < level[b];
    return a < b;
  });
  return order;
}

std::vector<int> repeat(const std::vector<int>& order, int threads) {
  std::vector<int> out(threads);
  for (int i = 0; i < threads; ++i) out[i] = order[i % order.size()];
  return out;
}

// hwloc_distrib's recursion: `cpus` in hierarchy order, `level` the level to split at.
void distribute(const MachineModel& m, const std::vector<int>& cpus, std::size_t level, int threads,
                std::vector<int>& out) {
  if (threads <= 0) return;
  std::vector<std::vector<int>> parts;
  while (level < m.levels.size()) {
    std::map<int, std::size_t> index;
    parts.clear();
    for (int c : cpus) {
      auto [it, inserted] = index.emplace(m.levels[level][c], parts.size());
      if (inserted) parts.emplace_back();
      parts[it->second].push_back(c);
    }
    if (parts.size() > 1) break;
    ++level;
  }
  if (level >= m.levels.size() || parts.size() <= 1) {  // a leaf: one CPU or one core's CPUs
    for (int i = 0; i < threads; ++i) out.push_back(cpus[i % cpus.size()]);
    return;
  }
  double given = 0;
  std::size_t seen = 0;
  for (const auto& part : parts) {
    seen += part.size();
    // Cumulative rounding, as hwloc does, so the shares always add up to `threads`.
    const double upto = std::round(static_cast<double>(threads) * seen / cpus.size());
    const int share = static_cast<int>(upto - given);
    given = upto;
    distribute(m, part, level + 1, share, out);
  }
}

}  // namespace

std::vector<int> sequential_placement(const MachineModel& m, int threads) {
  std::vector<int> order(m.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  return repeat(order, threads);
}

std::vector<int> compact_placement(const MachineModel& m, int threads) {
  return repeat(hierarchy_order(m), threads);
}

std::vector<int> scatter_placement(const MachineModel& m, int threads) {
  std::vector<int> order = hierarchy_order(m);
  const std::vector<int>* top = m.levels.empty() ? nullptr : &m.levels.front();
  std::map<int, int> seen_in_top;  // position of each CPU among same-rank CPUs of its package
  std::vector<int> position(m.size(), 0);
  for (int c : order) {
    const int key = (top ? (*top)[c] : 0) * 64 + m.cpus[c].rank_in_core;
    position[c] = seen_in_top[key]++;
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (m.cpus[a].rank_in_core != m.cpus[b].rank_in_core)
      return m.cpus[a].rank_in_core < m.cpus[b].rank_in_core;
    if (position[a] != position[b]) return position[a] < position[b];
    return (top ? (*top)[a] : 0) < (top ? (*top)[b] : 0);
  });
  return repeat(order, threads);
}

std::vector<int> spread_placement(const MachineModel& m, int threads) {
  std::vector<int> out;
  out.reserve(threads);
  distribute(m, hierarchy_order(m), 0, threads, out);
  return out;
}

std::vector<int> policy_placement(const MachineModel& m, const Topology& topology, Policy policy,
                                  int threads) {
  const std::vector<int> order = order_cpus(topology, m.candidate_set, policy);
  std::vector<int> cpu_of;
  for (int cpu : cpus_for_threads(order, static_cast<std::size_t>(std::max(threads, 0))))
    cpu_of.push_back(m.index_of(cpu));
  return cpu_of;
}

std::vector<Baseline> baselines(const MachineModel& m, int threads, const Topology* topology) {
  return {{"sequential", sequential_placement(m, threads)},
          {"compact", topology ? policy_placement(m, *topology, Policy::compact, threads)
                               : compact_placement(m, threads)},
          {"scatter", topology ? policy_placement(m, *topology, Policy::scatter, threads)
                               : scatter_placement(m, threads)},
          {"spread", spread_placement(m, threads)}};
}

}  // namespace threadmap::plan
