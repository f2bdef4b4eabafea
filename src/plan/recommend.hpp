// Recommendations other parts of threadmap (the report) show without a workload spec: the best
// CPUs for two communicating threads and for N compute threads, on a topology and/or a measured
// latency matrix. Both run the planner on a quick-form spec, so they agree with `threadmap plan`.
#pragma once

#include <string>
#include <vector>

#include "src/latency/matrix.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::plan {

/// A CPU pair for two threads that talk to each other.
struct PairRecommendation {
  int cpu_a = -1;
  int cpu_b = -1;
  double latency_ns = 0;  ///< one-way ns: measured (matrix) or the topology distance
  std::string relation;   ///< "SMT siblings", "same L3", ...
};

/// What to recommend on.
struct RecommendInputs {
  const Topology* topology = nullptr;       ///< may be null when matrix is given
  const latency::Matrix* matrix = nullptr;  ///< may be null when topology is given
  std::string model;                        ///< out: which cost model was used
};

/// The best `pairs` disjoint CPU pairs for communicating thread pairs (each pair talks only to
/// itself), best first. Fails when the machine has fewer than 2*pairs CPUs or inputs are bad.
Result<std::vector<PairRecommendation>> recommend_pairs(RecommendInputs& inputs, int pairs = 1);

/// The best CPUs for `threads` compute-bound threads: never two on one core while whole cores
/// are free, performance cores first on hybrids. In thread order.
Result<std::vector<int>> recommend_compute_cpus(RecommendInputs& inputs, int threads);

}  // namespace threadmap::plan
