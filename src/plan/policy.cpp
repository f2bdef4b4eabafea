// The CPU policy engine (see policy.hpp). Scatter ranks each CPU inside its parents so that
// the order is a pure function of the topology and the CPU set, tested on recorded machines.
#include "src/plan/policy.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

namespace threadmap::plan {

Result<Policy> parse_policy(std::string_view text) {
  if (text == "compact") return Policy::compact;
  if (text == "scatter") return Policy::scatter;
  if (text == "round-robin") return Policy::round_robin;
  return Error::invalid("unknown policy '" + std::string(text) +
                        "' (expected compact, scatter or round-robin)");
}

std::vector<int> order_cpus(const Topology& topology, const CpuSet& cpus, Policy policy) {
  std::vector<int> known;
  std::vector<int> unknown;
  for (int cpu : cpus.to_vector()) (topology.pu(cpu) ? known : unknown).push_back(cpu);
  auto place = [&topology](int cpu) { return *topology.pu(cpu); };

  if (policy == Policy::round_robin) {
    std::vector<int> all = cpus.to_vector();
    return all;
  }
  if (policy == Policy::compact) {
    std::sort(known.begin(), known.end(),
              [&](int a, int b) { return place(a).logical_index < place(b).logical_index; });
  } else {
    // Rank each selected CPU inside its parents: its SMT rank inside the core, the core's rank
    // inside the L3 (or package), the L3's rank inside the package. Sorting by those ranks,
    // deepest first, visits every package before reusing one, every L3 before a second core
    // of one, and SMT siblings last.
    std::map<int, std::vector<int>> pus_of_core, cores_of_l3, l3s_of_package;
    for (int cpu : known) {
      PuPlace p = place(cpu);
      pus_of_core[p.core].push_back(p.logical_index);
      cores_of_l3[p.l3 >= 0 ? p.l3 : p.package].push_back(p.core);
      l3s_of_package[p.package].push_back(p.l3);
    }
    auto rank = [](std::vector<int>& v, int value) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
      return static_cast<int>(std::lower_bound(v.begin(), v.end(), value) - v.begin());
    };
    std::map<int, std::tuple<int, int, int, int, int>> key;
    for (int cpu : known) {
      PuPlace p = place(cpu);
      key[cpu] = {rank(pus_of_core[p.core], p.logical_index),
                  rank(cores_of_l3[p.l3 >= 0 ? p.l3 : p.package], p.core),
                  rank(l3s_of_package[p.package], p.l3), p.package, p.logical_index};
    }
    std::sort(known.begin(), known.end(), [&](int a, int b) { return key[a] < key[b]; });
  }
  known.insert(known.end(), unknown.begin(), unknown.end());
  return known;
}

const char* policy_name(Policy policy) {
  switch (policy) {
    case Policy::compact:
      return "compact";
    case Policy::scatter:
      return "scatter";
    case Policy::round_robin:
      return "round-robin";
  }
  return "compact";
}

const std::vector<std::string>& policy_names() {
  static const std::vector<std::string> names = {
      policy_name(Policy::compact), policy_name(Policy::scatter), policy_name(Policy::round_robin)};
  return names;
}

std::vector<int> cpus_for_threads(const std::vector<int>& order, std::size_t threads) {
  std::vector<int> cpus;
  if (order.empty()) return cpus;
  for (std::size_t t = 0; t < threads; ++t) cpus.push_back(order[t % order.size()]);
  return cpus;
}

}  // namespace threadmap::plan
