// Comparing latency levels with what hwloc reports (SMT cores, L3 domains, dies, packages). A
// mismatch is information, not an error: guests are often given a topology that does not match
// the host ("measured domains do not match the reported L3: the guest's topology is wrong"),
// and a wrong topology means placement by hwloc puts talking threads far apart.
#pragma once

#include <string>
#include <vector>

#include "src/latency/domains.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::latency {

/// How one latency level relates to one hwloc level, over the matrix's CPUs.
enum class Relation {
  same,      ///< identical partitions
  finer,     ///< every latency group lies inside one hwloc group (latency splits them further)
  coarser,   ///< every hwloc group lies inside one latency group (latency joins them)
  crossing,  ///< groups cut across each other
};

/// One comparison line.
struct LevelComparison {
  std::string latency_level;  ///< "smt", "cache", ...
  std::string hwloc_level;    ///< "core", "l3", "die", "package"
  Relation relation = Relation::crossing;
  std::size_t latency_groups = 0;
  std::size_t hwloc_groups = 0;
  std::string sentence;  ///< the finding in words, for people
};

/// The comparison of the two key latency levels (smt, cache) and the levels above them with
/// hwloc's core, L3 (or L2 when a machine has no L3), die and package levels.
struct TopologyComparison {
  std::vector<LevelComparison> lines;
  bool smt_agrees = true;     ///< latency SMT groups == hwloc cores
  bool domains_agree = true;  ///< latency domains == hwloc L3 domains
};

/// Compares `analysis` (made from a matrix over `cpus`) with `topology`, restricted to those
/// CPUs. When the matrix has CPUs the topology does not know, the result is one "crossing" line
/// saying the topology describes another machine, and nothing agrees.
TopologyComparison compare_with_topology(const DomainAnalysis& analysis, const Topology& topology);

/// "same", "finer", "coarser", "crossing".
const char* relation_name(Relation relation);

}  // namespace threadmap::latency
