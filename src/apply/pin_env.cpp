// TM_PIN_CONFIG encoder (format: src/preload/pin/pin_config.h).
#include "src/apply/pin_env.hpp"

#include "src/preload/common/tm_pin_limits.h"

namespace threadmap::apply {
namespace {

// The C parser's limits, from the header both sides include.
constexpr long kMaxIndex = TM_PIN_MAX_INDEX;
constexpr int kMaxCpu = TM_PIN_MAX_CPU;
constexpr int kMaxNode = TM_PIN_MAX_NODE;

Status check_cpus(const CpuSet& cpus, const CpuSet& allowed, const std::string& what) {
  if (cpus.empty()) return Error::invalid(what + ": empty CPU set");
  if (cpus.last() > kMaxCpu)
    return Error::invalid(what + ": CPU " + std::to_string(cpus.last()) + " is out of range");
  if (!cpus.is_subset_of(allowed))
    return Error::invalid(what + ": CPUs " + (cpus - allowed).to_list() +
                          " are not in the allowed set " + allowed.to_list());
  return {};
}

Status check_pattern(const std::string& pattern, const std::string& what) {
  if (pattern.empty()) return Error::invalid(what + ": empty pattern");
  for (char c : pattern) {
    if (c == ';' || static_cast<unsigned char>(c) < 0x20)
      return Error::invalid(what + " '" + pattern +
                            "': ';' and control characters are not allowed");
  }
  return {};
}

// The CPU entries: main, slots, the cycle, thread-name and library patterns, each checked
// against the allowed CPUs.
Status encode_cpu_rules(const PinRules& rules, const CpuSet& allowed, std::string& out) {
  if (rules.main_cpus) {
    if (auto st = check_cpus(*rules.main_cpus, allowed, "main thread"); !st) return st;
    out += ";main=" + rules.main_cpus->to_list();
  }
  if (static_cast<long>(rules.slots.size()) > kMaxIndex + 1)
    return Error::invalid("too many thread slots (" + std::to_string(rules.slots.size()) +
                          ", at most " + std::to_string(kMaxIndex + 1) + ")");
  for (size_t k = 0; k < rules.slots.size(); ++k) {
    if (!rules.slots[k]) continue;
    if (auto st = check_cpus(*rules.slots[k], allowed, "thread slot " + std::to_string(k)); !st)
      return st;
    out += ";slot=" + std::to_string(k) + ":" + rules.slots[k]->to_list();
  }
  if (!rules.cycle.empty()) {
    out += ";cycle=";
    for (size_t k = 0; k < rules.cycle.size(); ++k) {
      if (auto st = check_cpus(rules.cycle[k], allowed, "cycle entry " + std::to_string(k)); !st)
        return st;
      out += (k ? "/" : "") + rules.cycle[k].to_list();
    }
  }
  for (const PatternRule& rule : rules.by_name) {
    if (auto st = check_pattern(rule.pattern, "thread name pattern"); !st) return st;
    if (auto st = check_cpus(rule.cpus, allowed, "thread '" + rule.pattern + "'"); !st) return st;
    out += ";name=" + rule.pattern + ":" + rule.cpus.to_list();
  }
  for (const PatternRule& rule : rules.by_library) {
    if (auto st = check_pattern(rule.pattern, "library pattern"); !st) return st;
    if (auto st = check_cpus(rule.cpus, allowed, "library '" + rule.pattern + "'"); !st) return st;
    out += ";lib=" + rule.pattern + ":" + rule.cpus.to_list();
  }
  return {};
}

// The threads left alone: by index, by name, by the library that started them.
Status encode_skips(const PinRules& rules, std::string& out) {
  for (long index : rules.skip_indexes) {
    if (index < 0 || index > kMaxIndex)
      return Error::invalid("skip index " + std::to_string(index) + " is out of range 0-" +
                            std::to_string(kMaxIndex));
    out += ";skip=" + std::to_string(index);
  }
  for (const std::string& pattern : rules.skip_names) {
    if (auto st = check_pattern(pattern, "skip pattern"); !st) return st;
    out += ";skipname=" + pattern;
  }
  for (const std::string& pattern : rules.skip_libraries) {
    if (auto st = check_pattern(pattern, "skip library pattern"); !st) return st;
    out += ";skiplib=" + pattern;
  }
  return {};
}

Status check_node(int node, const std::string& what) {
  if (node < 0 || node > kMaxNode)
    return Error::invalid(what + ": memory node " + std::to_string(node) + " is out of range 0-" +
                          std::to_string(kMaxNode));
  return {};
}

// The memory entries: the policy, and the nodes of main, slots and thread-name patterns,
// within the limits the C parser shares.
Status encode_memory_rules(const PinRules& rules, std::string& out) {
  if (!rules.memory.empty()) {
    for (char c : rules.memory)
      if (c == ';' || static_cast<unsigned char>(c) < 0x20)
        return Error::invalid("memory policy '" + rules.memory + "': bad character");
    out += ";mem=" + rules.memory;
  }
  if (rules.main_memory_node) {
    if (auto st = check_node(*rules.main_memory_node, "main thread"); !st) return st;
    out += ";mainmem=" + std::to_string(*rules.main_memory_node);
  }
  if (static_cast<long>(rules.slot_memory_nodes.size()) > kMaxIndex + 1)
    return Error::invalid("too many thread slots with memory nodes");
  for (size_t k = 0; k < rules.slot_memory_nodes.size(); ++k) {
    if (rules.slot_memory_nodes[k] < 0) continue;
    if (auto st = check_node(rules.slot_memory_nodes[k], "thread slot " + std::to_string(k)); !st)
      return st;
    out += ";slotmem=" + std::to_string(k) + ":" + std::to_string(rules.slot_memory_nodes[k]);
  }
  for (const auto& [pattern, node] : rules.name_memory_nodes) {
    if (auto st = check_pattern(pattern, "thread name pattern"); !st) return st;
    if (auto st = check_node(node, "thread '" + pattern + "'"); !st) return st;
    out += ";namemem=" + pattern + ":" + std::to_string(node);
  }
  return {};
}

}  // namespace

Result<std::string> encode_pin_config(const PinRules& rules, const CpuSet& allowed) {
  std::string out = TM_PIN_CONFIG_HEADER;
  if (auto st = encode_cpu_rules(rules, allowed, out); !st) return st.error();
  if (auto st = encode_skips(rules, out); !st) return st.error();
  if (auto st = encode_memory_rules(rules, out); !st) return st.error();
  if (rules.inherit) out += ";inherit";
  if (rules.override_affinity) out += ";overrideaffinity";
  return out;
}

}  // namespace threadmap::apply
