// The placements a person would make by hand, to show what the plan is worth: thread i on the
// i-th CPU, compact (fill each core, then the next), scatter (one thread per core, round robin
// over packages, like KMP_AFFINITY=scatter) and hwloc-distrib-style spreading (threads split
// over the hierarchy in proportion to each part's CPUs). They ignore traits and edges on purpose.
#pragma once

#include <string>
#include <vector>

#include "src/plan/policy.hpp"
#include "src/plan/problem.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::plan {

/// A named baseline placement (candidate CPU index per thread).
struct Baseline {
  std::string name;  ///< "sequential", "compact", "scatter", "spread"
  std::vector<int> cpu_of;
};

/// Thread i -> i-th candidate CPU in OS numbering (wrapping round when there are more threads).
std::vector<int> sequential_placement(const MachineModel& machine, int threads);
/// Fills the hierarchy in order: every CPU of a core, then the next core of the same cache...
std::vector<int> compact_placement(const MachineModel& machine, int threads);
/// First CPU of every core before any second CPU, alternating packages (KMP scatter).
std::vector<int> scatter_placement(const MachineModel& machine, int threads);
/// hwloc_distrib(): split the threads over the top level's objects in proportion to their CPU
/// counts, recursively, so threads end up as far apart as the hierarchy allows.
std::vector<int> spread_placement(const MachineModel& machine, int threads);

/// Thread t -> the t-th candidate in the order of the CPU policy (policy.hpp: the order
/// `threadmap run --policy` pins in), cycling when there are more threads than candidates.
/// Candidate indexes, like the placements above.
std::vector<int> policy_placement(const MachineModel& machine, const Topology& topology,
                                  Policy policy, int threads);

/// All four, in the order above. With a topology, compact and scatter are the CPU policies'
/// placements (policy_placement), so a plan's baselines cost exactly what `threadmap run
/// --policy` would do; without one (a latency matrix alone) they follow the matrix's hierarchy.
std::vector<Baseline> baselines(const MachineModel& machine, int threads,
                                const Topology* topology = nullptr);

}  // namespace threadmap::plan
