// Pair scheduling and classes for measure().
#include "src/latency/pair_plan.hpp"

#include <algorithm>

namespace threadmap::latency {

std::vector<PassTask> schedule_passes(std::size_t pairs, bool recheck, std::mt19937_64& rng) {
  std::vector<std::size_t> order(pairs);
  for (std::size_t i = 0; i < pairs; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<PassTask> tasks;
  std::vector<std::size_t> pending;
  std::bernoulli_distribution take_recheck(0.5);
  for (std::size_t p : order) {
    while (!pending.empty() && take_recheck(rng)) {
      std::uniform_int_distribution<std::size_t> pick(0, pending.size() - 1);
      std::size_t k = pick(rng);
      tasks.push_back({pending[k], 1});
      pending.erase(pending.begin() + static_cast<long>(k));
    }
    tasks.push_back({p, 0});
    if (recheck) pending.push_back(p);
  }
  std::shuffle(pending.begin(), pending.end(), rng);
  for (std::size_t p : pending) tasks.push_back({p, 1});
  return tasks;
}

std::string pair_class(const Topology& topo, int a, int b) {
  Level shared = topo.shared_level(a, b);
  std::string name;
  switch (shared) {
    case Level::core:
    case Level::pu:
      name = "same core (SMT siblings)";
      break;
    case Level::machine:
      name = "different packages";
      break;
    default:
      name = std::string("share ") + level_name(shared);
      break;
  }
  if (!topo.same_numa(a, b)) name += ", different NUMA nodes";
  const PuPlace* pa = topo.pu(a);
  const PuPlace* pb = topo.pu(b);
  if (pa && pb && pa->kind != pb->kind) {
    name += ", CPU kinds " + std::to_string(std::min(pa->kind, pb->kind)) + "/" +
            std::to_string(std::max(pa->kind, pb->kind));
  } else if (pa && pa->kind >= 0 && topo.cpu_kinds().size() > 1) {
    name += ", CPU kind " + std::to_string(pa->kind);
  }
  return name;
}

}  // namespace threadmap::latency
