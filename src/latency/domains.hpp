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
#include "threadmap/topology.hpp"

namespace threadmap::latency {

struct DomainAnalysis {
  /// Finest first, e.g. [SMT cores, cache domains, packages, machine].
  std::vector<std::vector<CpuSet>> levels;
  /// "smt", "cache" (or "cluster"), "group1", ..., "machine"; one per level.
  std::vector<std::string> level_names;
  /// Per level: how it was identified: "latency" (the matrix alone), "topology" (hwloc alone,
  /// the matrix showed no step there) or "both" (the matrix's groups equal hwloc's).
  std::vector<std::string> level_source;
  /// Why SMT was or was not found, in words ("pairs join at 68-91 ns, above the 25 ns an SMT
  /// sibling takes: a core cluster, not SMT").
  std::string smt_reason;
  /// Per level: why the level is not clean, in words, when its group sizes differ by more than
  /// 2x (e.g. one socket's CCXs merge while the other's stay apart because cross-CCX latency on
  /// that socket equals cross-socket); "" for an even level.
  std::vector<std::string> level_note;
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
  /// Why no structure was inferred at all, "" when it was: the matrix's pairs did not hold
  /// still (Matrix::stability unstable), so every CPU stands alone in one domain.
  std::string not_inferred;
};

/// Gap thresholds used by analyse_domains (exposed for tests and the docs).
struct DomainThresholds {
  /// A level boundary needs the next merge to be at least this much slower than the previous.
  double level_gap_ratio = 1.5;
  /// The SMT boundary may be weaker (it is checked by group shape: groups of 2, 4 or 8 CPUs).
  double smt_gap_ratio = 1.2;
  /// SMT siblings share L1 and L2: on every shared matrix they sit at 7-20 ns one-way, while
  /// the fastest pairs of distinct cores (clusters, mesh stops) take 40-110 ns. A group whose
  /// CPUs join above this is a core cluster, never SMT.
  double max_smt_ns = 25.0;
};

/// Clusters the CPUs of `matrix` (average linkage on the symmetric latencies; NaN cells ignored)
/// and cuts levels at the gaps. Every level is a partition of the matrix's CPUs, each coarser
/// than the one before; groups inside a level are ordered by their lowest CPU. levels[0] is
/// always the SMT level and levels[1] the cache domains (a single group when the matrix shows no
/// structure above SMT); "machine" is appended when the last level still has several groups.
/// SMT needs all three of: an SMT-shaped partition (groups of 2, 4 or 8), joined below
/// max_smt_ns, and, when `topology` is given, hwloc's cores agreeing (each group inside one
/// core). An SMT-shaped level that fails the latency or topology test is kept as a "cluster"
/// level (levels[1]) instead. With a topology that has SMT the matrix does not show, the SMT
/// level is taken from hwloc (level_source "topology").
/// A matrix whose stability is "unstable" gives no structure: one level of single CPUs ("smt",
/// smt_found false) and one domain of all CPUs, with not_inferred and smt_reason saying why.
/// Runs in O(n^3): 512 CPUs take a fraction of a second.
DomainAnalysis analyse_domains(const Matrix& matrix, const DomainThresholds& thresholds = {},
                               const Topology* topology = nullptr);

}  // namespace threadmap::latency
