// Latency domains: the groups of CPUs that a measured (or loaded) latency matrix says belong
// together, found by hierarchical clustering with the levels taken from gaps in the merge
// heights. This is what placement needs: `domains` are the CPUs that share a cache (one per
// socket on a monolithic Intel part, one per CCX on AMD), `smt_siblings` the CPUs that share a
// core — both inferred from latency alone, so they hold when the reported topology is wrong
// (guests) or unknown (a loaded CSV).
#pragma once

#include <string>
#include <vector>

#include "src/latency/matrix.hpp"
#include "threadmap/cpuset.hpp"

namespace threadmap::latency {

struct DomainAnalysis {
  /// Finest first, e.g. [SMT cores, cache domains, packages, machine].
  std::vector<std::vector<CpuSet>> levels;
  /// "smt", "cache", "group1", ..., "machine"; one per level.
  std::vector<std::string> level_names;
  /// Inferred SMT groups (each CPU alone when none found).
  std::vector<CpuSet> smt_siblings;
  /// The level just above SMT: CPUs sharing a cache.
  std::vector<CpuSet> domains;

  /// Per level: the cut height in ns (latency below which CPUs were joined into that level's
  /// groups: the geometric mean of the merge heights either side of the gap); 0 for a level of
  /// singletons, +inf for a level holding everything.
  std::vector<double> level_cut_ns;
  /// Per level: the gap ratio (first merge height above the cut / last merge below it) that
  /// made the level; 0 where the level was not made by a gap (singletons, the whole machine).
  std::vector<double> level_gap_ratio;
  /// True when SMT siblings were found (some group of smt_siblings holds more than one CPU).
  bool smt_found = false;
};

/// Gap thresholds used by analyse_domains (exposed for tests and the docs).
struct DomainThresholds {
  /// A level boundary needs the next merge to be at least this much slower than the previous.
  double level_gap_ratio = 1.5;
  /// The SMT boundary may be weaker (it is checked by group shape: groups of 2 or 4 CPUs).
  double smt_gap_ratio = 1.2;
};

/// Clusters the CPUs of `matrix` (average linkage on the symmetric latencies; NaN cells ignored)
/// and cuts levels at the gaps. Every level is a partition of the matrix's CPUs, each coarser
/// than the one before; groups inside a level are ordered by their lowest CPU. levels[0] is
/// always the SMT level and levels[1] the cache domains (a single group when the matrix shows no
/// structure above SMT); "machine" is appended when the last level still has several groups.
/// Runs in O(n^3): 512 CPUs take a fraction of a second.
DomainAnalysis analyse_domains(const Matrix& matrix, const DomainThresholds& thresholds = {});

}  // namespace threadmap::latency
