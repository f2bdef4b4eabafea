// The machine as the planner sees it: the candidate CPUs (allowed minus reserved), what each one
// shares with the others (core, cache domain, NUMA node, CPU kind) and the communication latency
// between every two of them, either measured (a latency matrix: a dense table, as the matrix is)
// or estimated from the topology (documented distances, see docs/plan.md) by walking the tree:
// a CPU x CPU table there would cost 36 MB and most of a second at 2,048 CPUs for what each
// pair's closest shared object already says.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/latency/matrix.hpp"
#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::plan {

/// Topology distances (one-way ns) used when no latency matrix is given. Chosen from the
/// medians of the shared measured matrices (tests/data/latency); the table in docs/plan.md
/// shows the measurements behind each value.
struct TopologyDistances {
  double same_core_ns = 10.0;      ///< SMT siblings (measured 7.8-12.7 ns)
  double same_l2_ns = 18.0;        ///< cluster sharing an L2 (between core and L3)
  double same_l3_ns = 25.0;        ///< same L3 / CCX (measured 18-33 ns on AMD)
  double same_die_ns = 80.0;       ///< same die, other L3
  double same_package_ns = 120.0;  ///< same package (AMD cross-CCD 85-158 ns)
  double other_numa_ns = 200.0;    ///< other NUMA node or package (measured 108-204 ns)
};

/// Estimated one-way latency (ns) between two OS CPUs of `topo` from what they share (the
/// closest common level, and whether they sit in one NUMA node), per `distances`. The one
/// topology distance of the project: the planner's cost model and the experiments' choice of
/// CPU pairs both use it.
double topology_distance_ns(const Topology& topo, int cpu_a, int cpu_b,
                            const TopologyDistances& distances = {});

/// One candidate CPU and where it sits. Group ids are dense (0..n-1) within the model.
struct PlanCpu {
  int cpu = -1;             ///< OS CPU number
  int core = 0;             ///< SMT group: CPUs with the same core share execution units
  int rank_in_core = 0;     ///< position among the candidate CPUs of its core (0 = first)
  int domain = 0;           ///< cache domain (L3, or the matrix's latency domain)
  int numa = -1;            ///< NUMA node OS number (numactl, /sys), -1 when unknown
  bool efficiency = false;  ///< an efficiency (E-) core on a hybrid machine
  bool isolated = false;    ///< listed in the kernel's isolated CPUs
};

/// What the planner plans on. Build with build_machine().
struct MachineModel {
  std::vector<PlanCpu> cpus;  ///< candidate CPUs, ascending OS number
  /// With a matrix: cpus.size()^2, one-way ns; [i][i] = same-CPU cost. Empty for the topology
  /// model, where latency() walks the tree (`tree` below).
  std::vector<double> latency_ns;
  /// Hierarchy for the spreading baseline, coarsest level first (package, die, L3, L2, core or
  /// the matrix's levels): group id of each candidate CPU at each level.
  std::vector<std::vector<int>> levels;
  std::string model;            ///< "measured latency (FILE)" or "topology distance (SOURCE)"
  bool measured = false;        ///< latency_ns comes from a matrix
  bool has_efficiency = false;  ///< some candidates are efficiency cores, some are not
  std::string kinds_note;       ///< how E-cores were decided (or why there are none)
  bool has_isolated = false;    ///< some candidates are isolated CPUs
  int core_count = 0;           ///< distinct cores among the candidates
  int domain_count = 0;         ///< distinct cache domains among the candidates
  double reference_ns = 0;      ///< unit of the penalties: median latency between candidates
  std::string domain_name;      ///< what a domain is ("L3", "latency domain")
  /// NUMA nodes of the machine, OS numbers ascending; empty without a topology.
  std::vector<int> numa_nodes;
  bool numa_known = false;  ///< a topology told where the NUMA nodes are (else: unknown)
  CpuSet candidate_set;     ///< the candidates as a set

  /// The topology's answer for a pair, filled by build_machine when there is a topology: each
  /// candidate's ancestors (object indexes, root first, -1 past its PU), and per object the
  /// distance and relation when it is the closest shared one. Size O(CPUs x tree depth).
  struct Tree {
    int depth = 0;                     ///< longest chain
    std::vector<int> chains;           ///< cpus.size() * depth
    std::vector<int> numa;             ///< per candidate: NUMA node logical index, -1 unknown
    std::vector<double> object_ns;     ///< per topology object
    std::vector<int> object_relation;  ///< per topology object: index into relation_labels
    double other_numa_ns = 0;          ///< two NUMA nodes (or no shared object)
    int other_numa_relation = 0;       ///< "other NUMA node"
    int no_common_relation = 0;        ///< "other package"
    bool present = false;
    /// The closest object two candidates share, or -1.
    int shared(int i, int j) const {
      const int* a = &chains[static_cast<std::size_t>(i) * depth];
      const int* b = &chains[static_cast<std::size_t>(j) * depth];
      int common = -1;
      for (int k = 0; k < depth && a[k] == b[k] && a[k] >= 0; ++k) common = a[k];
      return common;
    }
    bool same_numa(int i, int j) const { return numa[i] < 0 || numa[j] < 0 || numa[i] == numa[j]; }
  };
  Tree tree;
  std::vector<std::string> relation_labels;  ///< what Tree::*relation index into

  std::size_t size() const { return cpus.size(); }
  double latency(int i, int j) const {
    if (!latency_ns.empty()) return latency_ns[static_cast<std::size_t>(i) * cpus.size() + j];
    if (!tree.same_numa(i, j)) return tree.other_numa_ns;
    const int common = tree.shared(i, j);
    return common < 0 ? tree.other_numa_ns : tree.object_ns[common];
  }
  /// Index of an OS CPU among the candidates, or -1.
  int index_of(int os_cpu) const;
  /// How two candidates relate, for the "why" column: "SMT siblings", "same L3", ...
  std::string relation(int i, int j) const;
};

/// Inputs of build_machine: at least one of topology or matrix.
struct MachineInputs {
  const Topology* topology = nullptr;       ///< structure (and distances when no matrix)
  const latency::Matrix* matrix = nullptr;  ///< measured latencies (rows = CPUs)
  std::string allowed;   ///< CPU expression limiting the candidates ("" = all allowed)
  std::string reserved;  ///< CPU expression removed from the candidates ("" = none)
  CpuSet isolated;       ///< isolated CPUs (preferred); empty = none
  TopologyDistances distances;
};

/// Builds the model. Fails (EINVAL, naming the expression or file) when an expression does not
/// resolve, when a candidate CPU is missing from the matrix, or when no candidate CPU is left.
Result<MachineModel> build_machine(const MachineInputs& inputs);

}  // namespace threadmap::plan
