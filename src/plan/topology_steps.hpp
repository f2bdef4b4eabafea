// Distance steps from every hwloc level that shares something, Group and Die included. The
// fixed levels of PuPlace (core, caches, die, package) miss hwloc Group objects: the 4-core
// clusters of Arm server parts (Kunpeng 920, subtype Cluster), sub-NUMA groups, and the
// synthetic "pack:2 group:8 core:4" machines. Ignoring them made every pair in a package cost
// the same, so ping-pong pairs were placed across clusters. Here the closest common ancestor of
// two CPUs in the object tree decides their distance, and a Group between two fixed levels
// gets a distance between theirs (geometric interpolation; nested groups step evenly).
#pragma once

#include <string>
#include <vector>

#include "src/plan/machine_model.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::plan {

class TopologySteps {
 public:
  TopologySteps(const Topology& topo, const TopologyDistances& distances);

  /// Modelled one-way ns between two OS CPUs (other NUMA node overrides everything).
  double distance_ns(int cpu_a, int cpu_b) const;
  /// "SMT siblings", "same L2", "same Group1 (Cluster)", "same package", "other NUMA node"...
  std::string relation(int cpu_a, int cpu_b) const;
  /// Names of the Group depths, outermost first: "Group0", "Group1 (Cluster)"...
  const std::vector<std::string>& group_names() const { return group_names_; }
  /// Group id of `cpu` at group depth `k` (outermost first), -1 when it has none there.
  int group_of(int cpu, std::size_t k) const;
  /// The objects from the root down to `cpu`'s PU (indexes into topo.objects()); empty when
  /// the CPU is not in the tree. Two CPUs' closest shared object is where their chains part.
  const std::vector<int>& chain(int cpu) const;
  /// Modelled ns between two CPUs of one NUMA node whose closest shared object is `object`
  /// (`via_cpu`: one CPU below it); distance_ns() is this with the NUMA check first.
  double shared_distance_ns(int object, int via_cpu) const {
    return object_distance(object, via_cpu);
  }
  /// relation() of two CPUs of one NUMA node whose closest shared object is `object`.
  std::string shared_relation(int object) const;

 private:
  int lca(int cpu_a, int cpu_b) const;  // index into topo.objects()
  double object_distance(int object, int via_cpu) const;

  const Topology& topo_;
  TopologyDistances d_;                  // a copy: callers pass temporaries ({} for the defaults)
  std::vector<std::vector<int>> chain_;  // per OS CPU: object indexes root .. PU (empty: none)
  std::vector<int> group_depths_;        // tree depths holding Group objects, outermost first
  std::vector<std::string> group_names_;
};

}  // namespace threadmap::plan
