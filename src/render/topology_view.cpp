#include "src/render/topology_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace threadmap::render {
namespace {

std::string short_type(const TopoObject& o) {
  if (o.type == "L1Cache") return "L1d";
  if (o.type == "L2Cache") return "L2";
  if (o.type == "L3Cache") return "L3";
  if (o.type == "L1iCache") return "L1i";
  if (o.type == "L2iCache") return "L2i";
  if (o.type == "L3iCache") return "L3i";
  return o.type;
}

// hwloc numbers Groups per depth, so two Group depths both start at L#0; name them by depth
// (Group0 outermost, Group1 inside it...) as lstopo does.
std::string group_name(const Topology& topo, const TopoObject& o) {
  std::vector<int> depths;
  for (const TopoObject& other : topo.objects())
    if (other.type == "Group") depths.push_back(other.depth);
  std::sort(depths.begin(), depths.end());
  depths.erase(std::unique(depths.begin(), depths.end()), depths.end());
  auto at = std::find(depths.begin(), depths.end(), o.depth) - depths.begin();
  return "Group" + std::to_string(at);
}

std::string label(const Topology& topo, const TopoObject& o) {
  std::string s = fmt::format("{} L#{}", o.type == "Group" ? group_name(topo, o) : short_type(o),
                              o.logical_index);
  if (o.type == "PU" || o.type == "NUMANode" || o.type == "Package")
    if (o.os_index >= 0) s += fmt::format(" P#{}", o.os_index);
  if (!o.subtype.empty()) s += " (" + o.subtype + ")";
  if (o.cache_bytes) s += " (" + human_bytes(o.cache_bytes) + ")";
  if (o.type == "Core") {
    s += " cpus " + o.cpus.to_list();
    if (o.cpus.count() > 1) s += " (SMT siblings)";
  }
  if (o.type == "PU" && !topo.allowed_cpus().contains(o.os_index)) s += " (not allowed)";
  return s;
}

bool is_cpu_side(const TopoObject& o) { return o.type != "NUMANode" && o.type != "MemCache"; }

void walk(const Topology& topo, int index, int indent, std::string& out) {
  const auto& objs = topo.objects();
  std::string line;
  int cur = index;
  // Merge single-child chains onto one line ("L2 L#0 (1MB) + L1d L#0 (32KB) + Core L#0").
  while (true) {
    const TopoObject& o = objs[static_cast<size_t>(cur)];
    if (!line.empty()) line += " + ";
    line += label(topo, o);
    if (o.children.size() != 1) break;
    const TopoObject& only = objs[static_cast<size_t>(o.children[0])];
    if (!is_cpu_side(only) || only.type == "PU") break;
    cur = o.children[0];
  }
  const TopoObject& last = objs[static_cast<size_t>(cur)];
  if (last.type != "PU" && last.type != "Core" && !last.cpus.empty() &&
      (last.type.find("Cache") != std::string::npos || last.type == "Package" ||
       last.type == "Die" || last.type == "Group"))
    line += "  cpus " + last.cpus.to_list();
  out += std::string(static_cast<size_t>(indent) * 2, ' ') + line + "\n";
  for (int child : last.children) walk(topo, child, indent + 1, out);
}

// "SMT-2", or "SMT-2 on 6 of 14 cores" on hybrids where only some cores have siblings.
std::string smt_text(const Topology& topo) {
  size_t widest = 1;
  int with_smt = 0;
  auto cores = topo.groups(Level::core);
  for (const CpuSet& core : cores) {
    widest = std::max(widest, core.count());
    if (core.count() > 1) ++with_smt;
  }
  if (with_smt == static_cast<int>(cores.size())) return fmt::format("SMT-{}", widest);
  return fmt::format("SMT-{} on {} of {} cores", widest, with_smt, cores.size());
}

}  // namespace

std::string human_bytes(std::uint64_t bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  double v = static_cast<double>(bytes);
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (v == static_cast<double>(static_cast<std::uint64_t>(v)))
    return fmt::format("{:.0f}{}", v, units[u]);
  return fmt::format("{:.1f}{}", v, units[u]);
}

std::string topology_tree(const Topology& topo) {
  std::string out;
  std::string model = topo.cpu_model();
  out += fmt::format("{}{}\n", topo.source(), model.empty() ? "" : "  (" + model + ")");
  if (!topo.objects().empty()) walk(topo, 0, 0, out);
  out += fmt::format("allowed CPUs: {} of {} (OS CPU numbers; L# = hwloc logical index)\n",
                     topo.allowed_cpus().to_list(), topo.complete_cpus().count());
  // One kind is no distinction: "CPU kind 0 (efficiency 0)" on every CPU says nothing.
  if (topo.cpu_kinds().size() > 1)
    for (const CpuKind& k : topo.cpu_kinds()) {
      std::string info;
      for (const auto& [name, value] : k.infos) info += " " + name + "=" + value;
      out += fmt::format("CPU kind {} (efficiency {}): cpus {}{}\n", k.index, k.efficiency,
                         k.cpus.to_list(), info);
    }
  return out;
}

std::string topology_summary(const Topology& topo) {
  TopologyCounts c = topo.counts();
  auto plural = [](int n, const char* one, const char* many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
  };
  std::string smt = c.cores > 0 && c.pus > c.cores ? smt_text(topo) : std::string("no SMT");
  std::string s =
      fmt::format("{}, {}, {}, {}, {} ({})", plural(c.packages, "package", "packages"),
                  plural(c.numa_nodes, "NUMA node", "NUMA nodes"), plural(c.l3_caches, "L3", "L3s"),
                  plural(c.cores, "core", "cores"), plural(c.pus, "PU", "PUs"), smt);
  if (topo.cpu_kinds().size() > 1) s += fmt::format(", {} CPU kinds", topo.cpu_kinds().size());
  s += "; allowed CPUs " + topo.allowed_cpus().to_list();
  std::string model = topo.cpu_model();
  if (!model.empty()) s += "; " + model;
  return s;
}

nlohmann::json topology_json(const Topology& topo) {
  using nlohmann::json;
  TopologyCounts c = topo.counts();
  json j;
  j["schema"] = "threadmap.topology/1";
  j["source"] = topo.source();
  j["cpu_model"] = topo.cpu_model();
  j["counts"] = {{"packages", c.packages},
                 {"dies", c.dies},
                 {"numa_nodes", c.numa_nodes},
                 {"l3_caches", c.l3_caches},
                 {"l2_caches", c.l2_caches},
                 {"cores", c.cores},
                 {"pus", c.pus}};
  j["complete_cpus"] = topo.complete_cpus().to_list();
  j["allowed_cpus"] = topo.allowed_cpus().to_list();
  json infos = json::object();
  for (const auto& [k, v] : topo.machine_infos()) infos[k] = v;
  j["machine_infos"] = infos;
  json pus = json::array();
  for (const PuPlace& p : topo.pus()) {
    pus.push_back({{"cpu", p.os_cpu},
                   {"logical_index", p.logical_index},
                   {"core", p.core},
                   {"l1", p.l1},
                   {"l2", p.l2},
                   {"l3", p.l3},
                   {"die", p.die},
                   {"package", p.package},
                   {"numa", p.numa},
                   {"numa_os", p.numa_os},
                   {"kind", p.kind},
                   {"smt_siblings", topo.smt_siblings(p.os_cpu).to_vector()},
                   {"allowed", topo.allowed_cpus().contains(p.os_cpu)}});
  }
  j["pus"] = pus;
  // NUMA nodes by the number the OS gives them (numactl, /sys, memory-node in specs); hwloc's
  // logical index can differ (Dell R740 SNC2: L#1 is node 2).
  json nodes = json::array();
  for (const NumaNode& n : topo.numa_nodes())
    nodes.push_back({{"os_index", n.os_index},
                     {"logical_index", n.logical_index},
                     {"cpus", n.cpus.to_list()},
                     {"bytes", n.local_memory},
                     {"subtype", n.subtype}});
  j["numa_nodes"] = nodes;
  auto groups = [&](Level level) {
    json arr = json::array();
    for (const CpuSet& s : topo.groups(level)) arr.push_back(s.to_list());
    return arr;
  };
  j["groups"] = {{"packages", groups(Level::package)}, {"dies", groups(Level::die)},
                 {"numa_nodes", groups(Level::numa)},  {"l3_caches", groups(Level::l3)},
                 {"l2_caches", groups(Level::l2)},     {"cores", groups(Level::core)}};
  json kinds = json::array();
  for (const CpuKind& k : topo.cpu_kinds()) {
    json ki = json::object();
    for (const auto& [name, value] : k.infos) ki[name] = value;
    kinds.push_back({{"index", k.index},
                     {"efficiency", k.efficiency},
                     {"cpus", k.cpus.to_list()},
                     {"infos", ki}});
  }
  j["cpu_kinds"] = kinds;
  // The tree, flattened: parents refer to indexes in this array.
  json tree = json::array();
  for (const TopoObject& o : topo.objects()) {
    tree.push_back({{"type", o.type},
                    {"logical_index", o.logical_index},
                    {"os_index", o.os_index},
                    {"depth", o.depth},
                    {"parent", o.parent},
                    {"cpus", o.cpus.to_list()},
                    {"bytes", o.cache_bytes},
                    {"subtype", o.subtype}});
  }
  j["objects"] = tree;
  return j;
}

}  // namespace threadmap::render
