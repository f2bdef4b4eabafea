// Which pair passes a run makes and in what order: the shuffled, interleaved schedule of first
// passes and re-checks, and the topology classes --quick picks one representative pair from.
#pragma once

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "threadmap/topology.hpp"

namespace threadmap::latency {

/// One pass over one pair.
struct PassTask {
  std::size_t pair = 0;  ///< index into the run's pair list
  int pass = 0;          ///< 0 = first pass, 1 = re-check
};

/// First passes of pairs 0..pairs-1 in shuffled order; with `recheck`, each pair's second pass
/// is inserted at a random point after its first, so re-checks are spread over the run
/// (measured minutes later, under other conditions) rather than forming one block at the end.
std::vector<PassTask> schedule_passes(std::size_t pairs, bool recheck, std::mt19937_64& rng);

/// What two CPUs share, in words: "same core (SMT siblings)", "share l3", "share package",
/// "different packages", plus ", different NUMA nodes" and the CPU kinds on hybrid parts. Pairs
/// with the same class are expected to have the same latency; --quick measures one of each.
std::string pair_class(const Topology& topology, int cpu_a, int cpu_b);

}  // namespace threadmap::latency
