#include "src/plan/topology_steps.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "src/plan/machine_model.hpp"

namespace threadmap::plan {
namespace {

// Distance of a fixed (non-Group) object type as the closest level two CPUs share; < 0 for a
// Group, which is interpolated.
double fixed_distance(const std::string& type, const TopologyDistances& d) {
  if (type == "PU" || type == "Core" || type == "L1Cache") return d.same_core_ns;
  if (type == "L2Cache") return d.same_l2_ns;
  if (type == "L3Cache") return d.same_l3_ns;
  if (type == "Die") return d.same_die_ns;
  if (type == "Package") return d.same_package_ns;
  if (type == "Group") return -1;
  return d.other_numa_ns;  // Machine: other package
}

std::string fixed_relation(const std::string& type) {
  if (type == "PU") return "same CPU";
  if (type == "Core" || type == "L1Cache") return "SMT siblings";
  if (type == "L2Cache") return "same L2";
  if (type == "L3Cache") return "same L3";
  if (type == "Die") return "same die";
  if (type == "Package") return "same package";
  return "other package";
}

}  // namespace

TopologySteps::TopologySteps(const Topology& topo, const TopologyDistances& distances)
    : topo_(topo), d_(distances) {
  const auto& objects = topo.objects();
  std::set<int> depths;
  std::vector<std::string> subtype_at;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const TopoObject& o = objects[i];
    if (o.type == "Group") depths.insert(o.depth);
    if (o.type != "PU" || o.os_index < 0) continue;
    if (chain_.size() <= static_cast<std::size_t>(o.os_index)) chain_.resize(o.os_index + 1);
    std::vector<int> up;
    for (int at = static_cast<int>(i); at >= 0; at = objects[at].parent) up.push_back(at);
    std::reverse(up.begin(), up.end());
    chain_[o.os_index] = std::move(up);
  }
  group_depths_.assign(depths.begin(), depths.end());
  for (std::size_t k = 0; k < group_depths_.size(); ++k) {
    std::string name = "Group" + std::to_string(k);
    for (const TopoObject& o : objects)
      if (o.type == "Group" && o.depth == group_depths_[k] && !o.subtype.empty()) {
        name += " (" + o.subtype + ")";
        break;
      }
    group_names_.push_back(name);
  }
}

int TopologySteps::lca(int a, int b) const {
  if (a < 0 || b < 0 || static_cast<std::size_t>(std::max(a, b)) >= chain_.size()) return -1;
  const auto& ca = chain_[a];
  const auto& cb = chain_[b];
  int common = -1;
  for (std::size_t i = 0; i < std::min(ca.size(), cb.size()) && ca[i] == cb[i]; ++i) common = ca[i];
  return common;
}

int TopologySteps::group_of(int cpu, std::size_t k) const {
  if (cpu < 0 || static_cast<std::size_t>(cpu) >= chain_.size() || k >= group_depths_.size())
    return -1;
  for (int at : chain_[cpu]) {
    const TopoObject& o = topo_.objects()[at];
    if (o.type == "Group" && o.depth == group_depths_[k]) return o.logical_index;
  }
  return -1;
}

// A Group's distance: between the nearest fixed level below it on `via_cpu`'s path and the
// nearest fixed level above it, each Group depth between them one even (geometric) step.
double TopologySteps::object_distance(int object, int via_cpu) const {
  const auto& objects = topo_.objects();
  double own = fixed_distance(objects[object].type, d_);
  if (own >= 0) return own;
  const auto& path = chain_[via_cpu];
  auto pos = std::find(path.begin(), path.end(), object) - path.begin();
  // Groups stacked between the fixed levels, and where this one sits among them.
  std::ptrdiff_t lo = pos, hi = pos;
  while (hi + 1 < static_cast<std::ptrdiff_t>(path.size()) &&
         fixed_distance(objects[path[hi + 1]].type, d_) < 0)
    ++hi;
  while (lo - 1 >= 0 && fixed_distance(objects[path[lo - 1]].type, d_) < 0) --lo;
  const double below = hi + 1 < static_cast<std::ptrdiff_t>(path.size())
                           ? fixed_distance(objects[path[hi + 1]].type, d_)
                           : d_.same_core_ns;
  const double above =
      lo - 1 >= 0 ? fixed_distance(objects[path[lo - 1]].type, d_) : d_.other_numa_ns;
  const double stacked = static_cast<double>(hi - lo + 1);
  const double step = static_cast<double>(hi - pos + 1);  // 1 = the innermost group
  return below * std::pow(above / below, step / (stacked + 1));
}

double TopologySteps::distance_ns(int cpu_a, int cpu_b) const {
  if (!topo_.same_numa(cpu_a, cpu_b)) return d_.other_numa_ns;
  int common = lca(cpu_a, cpu_b);
  if (common < 0) return d_.other_numa_ns;
  return object_distance(common, cpu_a);
}

const std::vector<int>& TopologySteps::chain(int cpu) const {
  static const std::vector<int> none;
  if (cpu < 0 || static_cast<std::size_t>(cpu) >= chain_.size()) return none;
  return chain_[cpu];
}

std::string TopologySteps::relation(int cpu_a, int cpu_b) const {
  if (!topo_.same_numa(cpu_a, cpu_b)) return "other NUMA node";
  int common = lca(cpu_a, cpu_b);
  if (common < 0) return "other package";
  return shared_relation(common);
}

std::string TopologySteps::shared_relation(int common) const {
  const TopoObject& o = topo_.objects()[common];
  if (o.type != "Group") return fixed_relation(o.type);
  for (std::size_t k = 0; k < group_depths_.size(); ++k)
    if (group_depths_[k] == o.depth) return "same " + group_names_[k];
  return "same group";
}

}  // namespace threadmap::plan
