// Plan-to-rules translation for `threadmap run` (the CPU policies are in src/plan/policy).
#include "src/apply/placement.hpp"

#include <algorithm>

namespace threadmap::apply {

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

PinRules rules_from_plan(const plan::PlanFile& plan, bool by_name) {
  PinRules rules;
  for (const PlannedThread& planned : plan.assignments) {
    if (planned.thread == "main") {
      rules.main_cpus = planned.cpus;
      if (planned.memory_node >= 0) rules.main_memory_node = planned.memory_node;
    } else if (by_name) {
      rules.by_name.push_back({literal_glob(planned.thread), planned.cpus});
      if (planned.memory_node >= 0)
        rules.name_memory_nodes.emplace_back(literal_glob(planned.thread), planned.memory_node);
    } else {
      rules.slots.emplace_back(planned.cpus);
      rules.slot_memory_nodes.push_back(planned.memory_node);
    }
  }
  // No slot has a memory node: no slotmem entries at all.
  if (std::all_of(rules.slot_memory_nodes.begin(), rules.slot_memory_nodes.end(),
                  [](int n) { return n < 0; }))
    rules.slot_memory_nodes.clear();
  return rules;
}

std::string glob_problem(std::string_view pattern) {
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      ++i;
      continue;
    }
    if (pattern[i] != '[') continue;
    // A class holds at least one character, so a ']' right after '[' (or "[!") is inside it.
    std::size_t j = i + 1;
    if (j < pattern.size() && pattern[j] == '!') ++j;
    if (j < pattern.size() && pattern[j] == ']') ++j;
    j = pattern.find(']', j);
    if (j == std::string_view::npos)
      return "'[' at position " + std::to_string(i + 1) +
             " opens a character class that is never "
             "closed (a literal '[' is written '\\[')";
    i = j;
  }
  return "";
}

Status add_skips(PinRules& rules, const std::vector<std::string>& items) {
  for (const std::string& item : items) {
    if (item.empty()) return Error::invalid("empty skip item");
    // "lib:" holds no bracket, so the position counts in the item as typed.
    if (std::string problem = glob_problem(item); !problem.empty())
      return Error::invalid("skip pattern '" + item + "': " + problem);
    bool digits =
        std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits) {
      if (item.size() > 7) return Error::invalid("skip index '" + item + "' is out of range");
      rules.skip_indexes.push_back(std::stol(item));
    } else if (item.rfind("lib:", 0) == 0) {
      if (item.size() == 4) return Error::invalid("skip item 'lib:' needs a library pattern");
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
    return Error::invalid("bad library rule '" + std::string(item) + "': expected GLOB=CPUS");
  auto cpus = topology.resolve(item.substr(eq + 1));
  if (!cpus) return cpus.error().with_context("bad library rule '" + std::string(item) + "'");
  rules.by_library.push_back({std::string(item.substr(0, eq)), *cpus});
  return {};
}

}  // namespace threadmap::apply
