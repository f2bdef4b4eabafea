// `--mem` parsing and checking (see memory_policy.hpp).
#include "src/apply/memory_policy.hpp"

#include <algorithm>
#include <set>

#include "src/core/text.hpp"

namespace threadmap::apply {
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() <= 4 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "N" or "A-B" items joined by ','; "all" gives an empty list (every node, filled in later).
Result<std::vector<int>> parse_nodes(std::string_view text, std::string_view whole) {
  auto bad = [&](const std::string& why) {
    return Error::invalid("bad memory policy '" + std::string(whole) + "': " + why);
  };
  if (text.empty()) return bad("empty node list");
  if (text == "all") return std::vector<int>{};
  std::set<int> nodes;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    size_t dash = item.find('-');
    std::string_view first = item.substr(0, dash);
    std::string_view last = dash == std::string_view::npos ? first : item.substr(dash + 1);
    if (!all_digits(first) || !all_digits(last))
      return bad("'" + std::string(item) + "' is not a node number or range (e.g. 0,2-3)");
    int a = std::stoi(std::string(first));
    int b = std::stoi(std::string(last));
    if (b < a) return bad("range '" + std::string(item) + "' runs backwards");
    if (b > kMaxMemoryNode)
      return bad("node " + std::to_string(b) + " is out of range 0-" +
                 std::to_string(kMaxMemoryNode));
    for (int n = a; n <= b; ++n) nodes.insert(n);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return std::vector<int>(nodes.begin(), nodes.end());
}

}  // namespace

const char* memory_mode_name(MemoryMode mode) {
  switch (mode) {
    case MemoryMode::local:
      return "local";
    case MemoryMode::interleave:
      return "interleave";
    case MemoryMode::bind:
      return "bind";
    case MemoryMode::preferred:
      return "preferred";
  }
  return "?";
}

const std::vector<std::string>& memory_policy_forms() {
  static const std::vector<std::string> forms = {"local", "interleave", "interleave:NODES",
                                                 "bind:NODES", "preferred:NODE"};
  return forms;
}

Result<MemoryPolicy> parse_memory_policy(std::string_view text) {
  const std::string expected = "expected local, interleave[:NODES], bind:NODES or preferred:NODE";
  size_t colon = text.find(':');
  std::string_view mode = text.substr(0, colon);
  std::string_view rest =
      colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
  auto bad = [&](const std::string& why) {
    return Error::invalid("bad memory policy '" + std::string(text) + "': " + why);
  };
  MemoryPolicy policy;
  if (mode == "local") {
    if (colon != std::string_view::npos) return bad("local takes no node list");
    policy.mode = MemoryMode::local;
    return policy;
  }
  if (mode == "interleave") {
    policy.mode = MemoryMode::interleave;
    if (colon == std::string_view::npos) return policy;  // every node
  } else if (mode == "bind") {
    policy.mode = MemoryMode::bind;
    if (colon == std::string_view::npos) return bad("bind needs nodes (bind:0 or bind:0,2-3)");
  } else if (mode == "preferred") {
    policy.mode = MemoryMode::preferred;
    if (colon == std::string_view::npos) return bad("preferred needs one node (preferred:1)");
  } else {
    return bad(expected);
  }
  auto nodes = parse_nodes(rest, text);
  if (!nodes) return nodes.error();
  if (policy.mode == MemoryMode::preferred && nodes->size() != 1)
    return bad("preferred takes exactly one node");
  policy.nodes = std::move(*nodes);
  return policy;
}

Status check_memory_policy(MemoryPolicy& policy, const std::vector<NumaNode>& nodes) {
  std::vector<int> exist;
  for (const NumaNode& n : nodes) exist.push_back(n.os_index);
  if (exist.empty()) exist.push_back(0);  // no NUMA information: the kernel's node 0
  std::sort(exist.begin(), exist.end());
  if (policy.mode == MemoryMode::local) return {};
  if (policy.nodes.empty()) {  // interleave without a list, or "all"
    policy.nodes = exist;
    return {};
  }
  for (int n : policy.nodes) {
    if (!std::binary_search(exist.begin(), exist.end(), n))
      return Error::invalid("node " + std::to_string(n) + " does not exist on this machine (" +
                            (exist.size() == 1 ? "node: " : "nodes: ") + node_list(exist) + ")");
  }
  return {};
}

Result<MemoryPolicy> memory_policy_for(std::string_view text, const Topology& topology) {
  auto policy = parse_memory_policy(text);
  if (!policy) return policy.error();
  if (auto st = check_memory_policy(*policy, topology.numa_nodes()); !st) return st.error();
  return policy;
}

std::string encode_memory_policy(const MemoryPolicy& policy) {
  std::string out = memory_mode_name(policy.mode);
  if (policy.mode != MemoryMode::local) out += ":" + node_list(policy.nodes);
  return out;
}

std::string describe_memory_policy(const MemoryPolicy& policy, int machine_nodes) {
  std::string nodes = (policy.nodes.size() == 1 ? "node " : "nodes ") + node_list(policy.nodes);
  std::string what;
  switch (policy.mode) {
    case MemoryMode::local:
      what = "local (each thread's memory on the node it runs on)";
      break;
    case MemoryMode::interleave:
      what = "interleave over " + nodes;
      break;
    case MemoryMode::bind:
      what = "bind to " + nodes;
      break;
    case MemoryMode::preferred:
      what = "preferred " + nodes;
      break;
  }
  std::string out = "memory policy: " + what + " (set_mempolicy in every thread, OS node numbers)";
  if (machine_nodes <= 1) out += "; no-op on a 1-node machine: all memory is on node 0";
  return out;
}

}  // namespace threadmap::apply
