// The solvers: exact branch and bound for small workloads (proven optimal when it finishes),
// greedy construction plus local search for the rest. All minimise evaluate() of problem.hpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "src/plan/problem.hpp"

namespace threadmap::plan {

/// The moves a search from one start is owed before a time limit may stop it, by default
/// (`plan --min-steps`). 1,024 threads on the 384 CPUs of 2 x EPYC 9654 converge after ~1.2 M
/// moves; 300,000 owed reach a cost within 0.3% of that in ~0.15 s of CPU on the development VM
/// (docs/plan.md, "Solvers").
inline constexpr std::uint64_t kDefaultMinSteps = 300000;

/// Knobs shared by the solvers.
struct SolveOptions {
  int exact_max_threads = 12;       ///< use branch and bound up to this many threads
  double exact_time_limit_s = 2.0;  ///< stop proving after this long (then: best found)
  double local_time_limit_s = 1.5;  ///< stop improving after this long
  int local_max_passes = 60;        ///< passes over all units without the clock running out
  std::uint64_t seed = 1;           ///< local search visiting order (deterministic)
  int kick_rounds = 0;  ///< iterated local search rounds; 0 = by size (400 small .. 12 large)
  /// Moves each search from a seed (the greedy's placement, a baseline searched again) tries
  /// before a time limit may stop it: the time limits are wall-clock, and on a loaded machine
  /// the wall clock runs out before the search has had a CPU, which returned seeds unimproved.
  /// Steps do not depend on the load, so a plan searched this far is the same plan whatever
  /// the load (for one seed). A search that converges earlier stops earlier. 0: the time
  /// limits alone decide.
  std::uint64_t min_steps = kDefaultMinSteps;
  /// The whole search (iterated local search, branch and bound, the search again from a
  /// baseline) ends `whole_time_limit_s` after make_plan starts solving: `plan --time-limit`.
  /// 0: no bound beyond each solver's own limit.
  double whole_time_limit_s = 0;
  /// When the whole search must end (make_plan sets it from whole_time_limit_s); every solver
  /// stops by it whatever its own limit says.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

/// `options` with each solver's limit cut to the time left before options.deadline (never
/// below 0: a solver handed 0 seconds stops at its first clock check).
SolveOptions within_deadline(const SolveOptions& options);

/// A solver's answer.
struct Solution {
  std::vector<int> cpu_of;  ///< candidate CPU index per thread
  double cost = 0;          ///< evaluate(...).total()
  std::string solver;       ///< "branch and bound", "greedy + local search"
  bool proven_optimal = false;
  bool stopped_by_time = false;    ///< a time limit cut the search short
  std::uint64_t nodes = 0;         ///< search nodes (B&B) or moves tried (local search)
  int passes = 0;                  ///< local search passes
  std::string start = "greedy";    ///< where the search started: "greedy" or "NAME baseline"
  bool improved_on_start = false;  ///< the answer costs less than its start (objective)
};

/// Greedy construction: units in order of how strongly they connect to those already placed
/// (latency-critical and heavy first); each goes where it adds least cost, counting the edges
/// to its unplaced neighbours at the nearest free distance. Fails when a unit fits nowhere.
Result<Solution> solve_greedy(const Problem& problem);

/// Improves a solution by moving single threads and groups to free CPUs and swapping threads,
/// best improving move per unit, until a pass improves nothing, `local_max_passes` or the time
/// limit (which stops it only once `min_steps` moves were tried). Deterministic for a given
/// seed unless the time limit stops it.
Solution improve_local(const Problem& problem, Solution start, const SolveOptions& options);

/// Branch and bound over units with symmetry breaking (interchangeable cores/caches of the
/// machine are tried once) and an admissible bound; `incumbent` (may be empty) seeds the
/// best-known cost. proven_optimal is true when the search finished within its time limit.
Solution solve_exact(const Problem& problem, const Solution& incumbent,
                     const SolveOptions& options);

/// Iterated local search: up to `kick_rounds` times, swap a few threads at random with threads
/// near their partners, improve_local() again, keep the result when it is better. The time
/// limit ends it only once `min_steps` moves were tried in all its rounds together;
/// improved_on_start says whether the answer is cheaper than `start`.
Solution iterate_local(const Problem& problem, Solution start, const SolveOptions& options);

/// Runs the right solvers for the problem size and returns the best solution: greedy, then
/// iterated local search, then (up to exact_max_threads) branch and bound seeded with it.
Result<Solution> solve(const Problem& problem, const SolveOptions& options);

/// The order in which units are placed: strongest connection to those already placed first.
std::vector<int> placement_order(const Problem& problem);

}  // namespace threadmap::plan
