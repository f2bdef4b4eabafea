// Choosing CPUs for the experiments' variants from the topology: SMT siblings, CPUs on two
// different cores, the farthest-apart pair. Pure functions of (Topology, allowed CPUs), so they
// are tested on the recorded machines in tests/data/topologies.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "threadmap/cpuset.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::experiments {

/// A pair of OS CPU numbers.
using CpuPair = std::pair<int, int>;

/// Two allowed PUs of one core (SMT siblings), lowest core first; nullopt when no core has two
/// allowed PUs (no SMT, or it is disabled or outside the allowed set).
std::optional<CpuPair> smt_sibling_pair(const Topology& topo, const CpuSet& allowed);

/// Two allowed CPUs on different cores that are as close as possible (smallest
/// plan::topology_distance_ns, the shallower shared level, then the lowest numbers on ties);
/// nullopt when the allowed CPUs span fewer than two cores.
std::optional<CpuPair> nearest_pair_on_two_cores(const Topology& topo, const CpuSet& allowed);

/// The two allowed CPUs with the largest plan::topology_distance_ns, the deeper shared level
/// breaking ties (another package before another NUMA node of one package; lowest numbers last);
/// nullopt when fewer than two CPUs are allowed.
std::optional<CpuPair> farthest_pair(const Topology& topo, const CpuSet& allowed);

/// The allowed CPUs of the core of `cpu` (its SMT siblings that may be used), at most two,
/// ascending; just {cpu} when it has no allowed sibling.
std::vector<int> core_slots(const Topology& topo, const CpuSet& allowed, int cpu);

/// "CPU 3" or "CPUs 0-3" for a set; "not pinned" for the empty set.
std::string describe_cpus(const CpuSet& cpus);

}  // namespace threadmap::experiments
