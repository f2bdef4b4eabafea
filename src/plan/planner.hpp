// The planner's front door: a workload spec and a machine (topology and/or latency matrix) in,
// a placement with its cost, the hand-made baselines' costs and a reason per thread out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/core/planned_thread.hpp"
#include "src/latency/matrix.hpp"
#include "src/plan/problem.hpp"
#include "src/plan/solvers.hpp"
#include "src/plan/spec.hpp"
#include "threadmap/cpuset.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::plan {

/// One thread of the plan, in thread-creation order: its spec name, its CPU, why it is there
/// and the spec's memory-node (src/core/planned_thread.hpp, the type run and watch use too).
using threadmap::PlannedThread;

/// A plan and how it compares.
struct Plan {
  std::vector<PlannedThread> assignments;  ///< in thread-creation order
  CostBreakdown cost;
  std::string model;   ///< MachineModel::model
  std::string solver;  ///< which solver produced it
  bool proven_optimal = false;
  bool stopped_by_time = false;
  std::uint64_t search_nodes = 0;  ///< B&B nodes or local-search moves tried
  int passes = 0;                  ///< local search passes
  /// Moves each search start was owed before a time limit could stop it (SolveOptions).
  std::uint64_t min_steps = 0;
  /// Where the search started: "greedy" or "NAME baseline" (a baseline that beat the search's
  /// first answer); empty when a policy placed the threads and nothing was searched.
  std::string search_start;
  bool improved_on_start = false;  ///< the plan is cheaper than search_start's placement
  double solve_ms = 0;             ///< wall time of the solve, one run
  std::vector<std::pair<std::string, CostBreakdown>> baselines;  ///< sequential, compact, ...
  std::string source;                                            ///< spec file or quick form
  std::string kinds_note;                                        ///< how E-cores were recognised
  std::vector<std::string> notes;  ///< other facts worth printing (isolated CPUs preferred...)
  CpuSet candidates;               ///< the CPUs it planned on
};

/// What to plan on.
struct PlanInputs {
  const Topology* topology = nullptr;
  const latency::Matrix* matrix = nullptr;
  CpuSet isolated;  ///< isolated CPUs (read_isolated_cpus on this machine)
  /// Place by this policy instead of solving: CPU policies take the candidates in the order of
  /// policy.hpp (the order `threadmap run --policy` pins in, so both commands agree); spread
  /// takes the hwloc-distrib placement. A CPU policy needs the topology: with a matrix alone
  /// the solver places the threads as if no policy were given. nullopt = solve.
  std::optional<QuickPolicy> placement_policy;
  SolveOptions solve;
};

/// Builds the model and the problem, solves, evaluates the baselines and explains each thread.
/// Fails with one error naming the input (bad expression, infeasible spec, matrix mismatch).
Result<Plan> make_plan(const WorkloadSpec& spec, const PlanInputs& inputs);

}  // namespace threadmap::plan
