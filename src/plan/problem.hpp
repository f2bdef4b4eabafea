// The placement problem in solver form: threads and weighted edges over dense indexes, the
// machine model, and the penalties (in ns-equivalents, the unit of the communication cost).
// An assignment maps each thread to one candidate CPU index (MachineModel::cpus).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "src/plan/machine_model.hpp"
#include "src/plan/spec.hpp"

namespace threadmap::plan {

/// Penalty sizes. `hard` is larger than any communication saving a placement could make (it is
/// derived from the total edge weight and the slowest latency), so rules that carry it are
/// broken only when no placement can keep them; the others are in units of the machine's median
/// latency (MachineModel::reference_ns). docs/plan.md explains each.
struct Penalties {
  double hard = 0;               ///< per violation of compute/exclusive/oversubscription rules
  double background_core = 0;    ///< per (background, latency-critical) pair on one core
  double background_domain = 0;  ///< per such pair in one cache domain
  double wrong_kind = 0;         ///< background thread off E-cores / other thread on an E-core
  double remote_numa = 0;        ///< thread off the NUMA node of its stated memory
  double not_isolated = 0;       ///< thread off the isolated CPUs when the machine has some
};

/// Cost of one assignment, split by cause. Soft terms are in ns x weight (ns-equivalents); the
/// hard rules are counted, and the solvers minimise objective() = hard x count + total().
struct CostBreakdown {
  double communication = 0;        ///< sum over edges of weight x latency
  double share_core = 0;           ///< share-core-with pairs not on one core (baselines only)
  double background = 0;           ///< background threads near latency-critical ones
  double kinds = 0;                ///< threads on the wrong kind of core
  double numa = 0;                 ///< threads away from their memory
  double isolated = 0;             ///< threads off the isolated CPUs
  int compute_smt_pairs = 0;       ///< pairs of compute threads sharing a core
  int exclusive_conflicts = 0;     ///< threads on an exclusive thread's core
  int oversubscribed_threads = 0;  ///< extra threads (units) on a CPU beyond the first
  double hard = 0;                 ///< Penalties::hard of the problem, for objective()

  /// Communication plus soft penalties: the cost printed and compared.
  double total() const { return communication + share_core + background + kinds + numa + isolated; }
  /// Hard-rule violations (some are forced: more threads than CPUs, compute threads > cores).
  int rule_breaks() const {
    return compute_smt_pairs + exclusive_conflicts + oversubscribed_threads;
  }
  /// What the solvers minimise: rule breaks first, then total().
  double objective() const { return hard * rule_breaks() + total(); }
};

/// One thread in solver form.
struct ProblemThread {
  std::string name;
  bool compute = false, latency_critical = false, background = false, exclusive = false;
  int memory_node = -1;
  int unit = -1;                                   ///< index into Problem::units
  std::vector<std::pair<int, double>> neighbours;  ///< (thread, summed weight)
  std::vector<char> allowed;                       ///< per candidate CPU, empty = every candidate
};

/// Threads that move together: one thread, or a share-core-with group placed on one core.
struct Unit {
  std::vector<int> threads;  ///< members; for groups the root (named by the others) first
  bool group() const { return threads.size() > 1; }
};

struct Problem {
  const MachineModel* machine = nullptr;
  std::vector<ProblemThread> threads;
  std::vector<Unit> units;
  std::vector<std::vector<int>> core_cpus;  ///< candidate CPU indexes of each core, by rank
  bool oversubscribe = false;
  double total_weight = 0;
  double min_latency = 0;  ///< smallest latency between two distinct candidates (or same CPU)
  Penalties penalties;

  int size() const { return static_cast<int>(threads.size()); }
  /// Cost of being on candidate `cpu` that depends on the thread alone (kind, NUMA, isolation).
  double unary(int thread, int cpu) const;
  /// Whether the thread may go on that candidate at all (its own "cpus" limit).
  bool allowed(int thread, int cpu) const {
    return threads[thread].allowed.empty() || threads[thread].allowed[cpu];
  }
  /// CPU of each member when the group unit is anchored on `core`: members take the core's
  /// CPUs by rank, wrapping round when the group is larger than the core.
  int group_cpu(int core, int member_rank) const {
    const auto& c = core_cpus[core];
    return c[member_rank % c.size()];
  }
};

/// Builds the problem. Fails with one clear error (EINVAL) when the spec cannot be placed:
/// more threads than CPUs without oversubscription, more exclusive threads or share-core
/// groups than cores, a thread's "cpus" that are reserved, outside the allowed set or empty.
Result<Problem> build_problem(const WorkloadSpec& spec, const MachineModel& machine,
                              const Topology* topology);

/// Cost of an assignment (thread -> candidate CPU index), with the rule violations counted.
CostBreakdown evaluate(const Problem& problem, const std::vector<int>& cpu_of_thread);

}  // namespace threadmap::plan
