// Resolving CPU expressions ("core:0-3", "package:1.core:2", "l3:0", "0-3", "0xff", "all")
// against a topology. Type names go through hwloc's own parser (hwloc_type_sscanf_as_depth),
// so every spelling hwloc-calc accepts works here, plus the short aliases users type.
#include <strings.h>

#include <cctype>
#include <string>
#include <vector>

#include "src/core/devices.hpp"
#include "src/core/topology_state.hpp"

namespace threadmap {
namespace {

std::vector<std::string> split_terms(std::string_view text) {
  std::vector<std::string> terms;
  std::string cur;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '+') {
      if (!cur.empty()) terms.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) terms.push_back(std::move(cur));
  return terms;
}

// Aliases hwloc does not know but users type ("numa", "socket", "cpu", "l3").
std::string canonical_type(const std::string& name) {
  if (strcasecmp(name.c_str(), "numa") == 0 || strcasecmp(name.c_str(), "node") == 0)
    return "NUMANode";
  if (strcasecmp(name.c_str(), "socket") == 0) return "Package";
  if (strcasecmp(name.c_str(), "cpu") == 0) return "PU";
  return name;
}

Result<int> type_depth(hwloc_topology_t topo, const std::string& raw, const std::string& term) {
  std::string name = canonical_type(raw);
  hwloc_obj_type_t type;
  int depth = HWLOC_TYPE_DEPTH_UNKNOWN;
  if (hwloc_type_sscanf_as_depth(name.c_str(), &type, topo, &depth) < 0)
    return Error::invalid("unknown object type '" + raw + "' in '" + term + "'");
  if (depth == HWLOC_TYPE_DEPTH_UNKNOWN)
    return Error::invalid("this machine has no '" + raw + "' level (in '" + term + "')");
  if (depth == HWLOC_TYPE_DEPTH_MULTIPLE)
    return Error::invalid("'" + raw + "' exists at several depths; name the level exactly (in '" +
                          term + "')");
  return depth;
}

// Objects at `depth` below `parent` (by cpuset inclusion), in logical order.
std::vector<hwloc_obj_t> objects_inside(hwloc_topology_t topo, hwloc_obj_t parent, int depth) {
  std::vector<hwloc_obj_t> out;
  for (hwloc_obj_t obj = hwloc_get_next_obj_by_depth(topo, depth, nullptr); obj;
       obj = hwloc_get_next_obj_by_depth(topo, depth, obj)) {
    if (!obj->cpuset || hwloc_bitmap_iszero(obj->cpuset)) continue;
    if (parent == hwloc_get_root_obj(topo) || hwloc_bitmap_isincluded(obj->cpuset, parent->cpuset))
      out.push_back(obj);
  }
  return out;
}

Result<CpuSet> resolve_location(hwloc_topology_t topo, const std::string& term) {
  std::vector<hwloc_obj_t> current{hwloc_get_root_obj(topo)};
  size_t start = 0;
  while (start < term.size()) {
    size_t dot = term.find('.', start);
    std::string part =
        term.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    size_t colon = part.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == part.size())
      return Error::invalid("bad CPU location '" + part + "' in '" + term +
                            "': expected TYPE:INDEXES such as core:0-3");
    std::string type_name = part.substr(0, colon);
    std::string index_text = part.substr(colon + 1);
    auto depth = type_depth(topo, type_name, term);
    if (!depth) return depth.error();
    std::vector<hwloc_obj_t> next;
    // NUMA nodes are named by their OS number (numactl, /sys/devices/system/node/nodeN, a
    // spec's memory-node), not hwloc's logical index: on a Dell R740 in SNC2 mode NUMANode L#1
    // is node 2, and a user who types numa:2 means node 2. Every other type is logical, as in
    // hwloc-calc.
    if (*depth == HWLOC_TYPE_DEPTH_NUMANODE && index_text != "all") {
      auto nodes = CpuSet::parse_list(index_text);
      if (!nodes) return Error::invalid("bad node list '" + index_text + "' in '" + term + "'");
      for (hwloc_obj_t parent : current) {
        std::vector<hwloc_obj_t> inside = objects_inside(topo, parent, *depth);
        for (int node : nodes->to_vector()) {
          hwloc_obj_t found = nullptr;
          for (hwloc_obj_t obj : inside)
            if (static_cast<int>(obj->os_index) == node) found = obj;
          if (!found) {
            CpuSet os_numbers;  // a set of small integers, printed sorted as a kernel list
            for (hwloc_obj_t obj : inside) os_numbers.add(static_cast<int>(obj->os_index));
            std::string existing = os_numbers.to_list();
            return Error::invalid("NUMA node " + std::to_string(node) + " in '" + term +
                                  "' does not exist there (nodes, OS numbers: " +
                                  (existing.empty() ? "none" : existing) + ")");
          }
          next.push_back(found);
        }
      }
      current = std::move(next);
      if (dot == std::string::npos) break;
      start = dot + 1;
      continue;
    }
    for (hwloc_obj_t parent : current) {
      std::vector<hwloc_obj_t> inside = objects_inside(topo, parent, *depth);
      CpuSet indexes;
      if (index_text == "all") {
        indexes = CpuSet::range(0, static_cast<int>(inside.size()) - 1);
      } else {
        auto parsed = CpuSet::parse_list(index_text);
        if (!parsed) return Error::invalid("bad index list '" + index_text + "' in '" + term + "'");
        indexes = *parsed;
      }
      for (int i : indexes.to_vector()) {
        if (static_cast<size_t>(i) >= inside.size())
          return Error::invalid("index " + std::to_string(i) + " is out of range in '" + term +
                                "': there are " + std::to_string(inside.size()) + " " + type_name +
                                " objects there (indexes are logical, from 0)");
        next.push_back(inside[static_cast<size_t>(i)]);
      }
    }
    current = std::move(next);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  CpuSet out;
  for (hwloc_obj_t obj : current)
    if (obj->cpuset)
      hwloc_bitmap_or(static_cast<hwloc_bitmap_t>(out.native_handle()),
                      static_cast<hwloc_bitmap_t>(out.native_handle()), obj->cpuset);
  return out;
}

}  // namespace

Result<CpuSet> Topology::resolve(std::string_view expression) const {
  std::vector<std::string> terms = split_terms(expression);
  if (terms.empty()) return Error::invalid("empty CPU expression");
  CpuSet out;
  for (const std::string& term : terms) {
    Result<CpuSet> part = Error::invalid("");
    if (strcasecmp(term.c_str(), "all") == 0) {
      part = allowed_cpus();
    } else if (is_device_term(term)) {
      part = device_cpus(*this, term);  // gpu:N, gpu:UUID, nic:NAME, pci:BUSID
    } else if (std::isdigit(static_cast<unsigned char>(term[0]))) {
      part = CpuSet::parse(term);
    } else {
      part = resolve_location(state_->topo, term);
    }
    if (!part) return part.error();
    out |= *part;
  }
  CpuSet unknown = out - complete_cpus();
  if (!unknown.empty())
    return Error::invalid("CPU " + unknown.to_list() + " in '" + std::string(expression) +
                          "' does not exist on " + source() + " (CPUs " +
                          complete_cpus().to_list() + ")");
  return out;
}

}  // namespace threadmap
