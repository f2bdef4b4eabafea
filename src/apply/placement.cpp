// Policies and plan-to-rules translation for `threadmap run`.
#include "src/apply/placement.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace threadmap::apply {

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
    std::sort(known.begin(), known.end(), [&](int a, int b) {
      return place(a).logical_index < place(b).logical_index;
    });
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

PinRules rules_from_order(const std::vector<int>& order) {
  PinRules rules;
  if (order.empty()) return rules;
  rules.main_cpus = CpuSet{order[0]};
  for (size_t k = 1; k <= order.size(); ++k) rules.cycle.push_back(CpuSet{order[k % order.size()]});
  return rules;
}

namespace {

// Escapes glob metacharacters so a plan's thread name matches only itself.
std::string literal_glob(const std::string& name) {
  std::string out;
  for (char c : name.substr(0, kMaxThreadName)) {
    if (c == '*' || c == '?' || c == '[' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

PinRules rules_from_plan(const PlanFile& plan, bool by_name) {
  PinRules rules;
  for (const PlannedThread& planned : plan.assignments) {
    if (planned.thread == "main") {
      rules.main_cpus = planned.cpus;
    } else if (by_name) {
      rules.by_name.push_back({literal_glob(planned.thread), planned.cpus});
    } else {
      rules.slots.emplace_back(planned.cpus);
    }
  }
  return rules;
}

Status add_skips(PinRules& rules, const std::vector<std::string>& items) {
  for (const std::string& item : items) {
    if (item.empty()) return Error::invalid("empty --skip item");
    bool digits = std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits) {
      if (item.size() > 7) return Error::invalid("--skip index '" + item + "' is out of range");
      rules.skip_indexes.push_back(std::stol(item));
    } else if (item.rfind("lib:", 0) == 0) {
      if (item.size() == 4) return Error::invalid("--skip 'lib:' needs a library pattern");
      rules.skip_libraries.push_back(item.substr(4));
    } else {
      rules.skip_names.push_back(item);
    }
  }
  return {};
}

Status add_library_rule(PinRules& rules, const Topology& topology, std::string_view item) {
  size_t eq = item.rfind('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
    return Error::invalid("bad --lib '" + std::string(item) + "': expected GLOB=CPUS");
  auto cpus = topology.resolve(item.substr(eq + 1));
  if (!cpus) return cpus.error().with_context("bad --lib '" + std::string(item) + "'");
  rules.by_library.push_back({std::string(item.substr(0, eq)), *cpus});
  return {};
}

}  // namespace threadmap::apply
