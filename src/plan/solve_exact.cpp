// Branch and bound (see solvers.hpp). Units are placed in placement_order(); children are tried
// cheapest first; a branch is cut when its cost so far plus an admissible bound on the rest is
// no better than the best complete placement. The bound for an unplaced thread is its cheapest
// kind/NUMA/isolation cost, plus each edge to a placed thread at that thread's nearest-CPU
// latency, plus each edge between unplaced threads at the machine's smallest latency; penalties
// count as zero. Interchangeable machine parts are tried once (symmetry.hpp).
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>

#include "src/plan/placement_state.hpp"
#include "src/plan/solvers.hpp"
#include "src/plan/symmetry.hpp"

namespace threadmap::plan {
namespace {

class BranchAndBound {
 public:
  // `stop_at`: when the search gives up proving (taken before construction: on hundreds of
  // CPUs the symmetry and the tables below cost as much as the search, and `--time-limit`
  // bounds both).
  BranchAndBound(const Problem& p, const Solution& incumbent, const SolveOptions& options,
                 std::chrono::steady_clock::time_point stop_at)
      : p_(p),
        state_(p),
        sym_(find_symmetry(p)),
        options_(options),
        order_(placement_order(p)),
        stop_at_(stop_at) {
    const MachineModel& m = *p.machine;
    const int cpus = static_cast<int>(m.size());
    check_mask_ =
        std::bit_ceil(static_cast<std::uint64_t>(std::max(1, 4096 / std::max(1, cpus)))) - 1;
    nearest_.assign(cpus, std::numeric_limits<double>::infinity());
    for (int a = 0; a < cpus; ++a)
      for (int b = 0; b < cpus; ++b) nearest_[a] = std::min(nearest_[a], m.latency(a, b));
    // The strong bound assumes partners in other units sit on distinct CPUs: true unless
    // threads may share CPUs (oversubscription, or a group larger than a core stacks).
    strong_ = !p.oversubscribe && cpus > 1;
    std::size_t smallest_core = static_cast<std::size_t>(cpus);
    for (const auto& core : p.core_cpus) smallest_core = std::min(smallest_core, core.size());
    for (const Unit& u : p.units) strong_ = strong_ && u.threads.size() <= smallest_core;
    if (strong_) {
      const std::size_t keep = std::min<std::size_t>(16, static_cast<std::size_t>(cpus - 1));
      sorted_.resize(cpus);
      std::vector<double> row;
      for (int a = 0; a < cpus; ++a) {
        row.clear();
        for (int b = 0; b < cpus; ++b)
          if (b != a) row.push_back(m.latency(a, b));
        std::partial_sort(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(keep), row.end());
        sorted_[a].assign(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(keep));
      }
    }
    min_unary_.assign(p.size(), std::numeric_limits<double>::infinity());
    for (int t = 0; t < p.size(); ++t)
      for (int c = 0; c < cpus; ++c)
        if (p.allowed(t, c)) min_unary_[t] = std::min(min_unary_[t], p.unary(t, c));
    find_twin_threads();
    occupied_.resize(sym_.levels.size());
    for (std::size_t l = 0; l < sym_.levels.size(); ++l)
      occupied_[l].assign(sym_.levels[l].objects.size(), 0);
    if (!incumbent.cpu_of.empty()) {
      best_ = incumbent;
      best_cost_ = incumbent.cost;
    }
  }

  Solution run() {
    search(0);
    Solution out = best_;
    out.solver = "branch and bound";
    out.passes = 0;
    out.proven_optimal = !stopped_;
    out.stopped_by_time = stopped_;
    out.nodes = nodes_;
    if (!out.cpu_of.empty()) out.cost = evaluate(p_, out.cpu_of).objective();
    return out;
  }

 private:
  void mark(int unit, int sign) {
    for (int t : p_.units[unit].threads) {
      const int cpu = state_.cpu_of(t);
      for (std::size_t l = 0; l < sym_.levels.size(); ++l)
        occupied_[l][sym_.levels[l].object_of[cpu]] += sign;
    }
  }

  // Twin threads: single units with the same traits, CPU limits and edge weights to every other
  // thread; any placement stays as good when twins trade CPUs. Placing twins on increasing CPU
  // indexes (in placement order) keeps one of each set of equivalent placements. This and the
  // machine symmetry are not combined (two orderings can exclude each other's representatives):
  // twins win when some thread has at least two twins (an all-to-all group), which the machine
  // symmetry does not reduce, on measured matrices.
  void find_twin_threads() {
    const int n = p_.size();
    auto single = [&](int t) { return !p_.units[p_.threads[t].unit].group(); };
    std::vector<std::vector<double>> weight(n, std::vector<double>(n, 0));
    for (int t = 0; t < n; ++t)
      for (const auto& [v, w] : p_.threads[t].neighbours) weight[t][v] = w;
    auto twins = [&](int a, int b) {
      const ProblemThread& x = p_.threads[a];
      const ProblemThread& y = p_.threads[b];
      if (!single(a) || !single(b) || x.compute != y.compute ||
          x.latency_critical != y.latency_critical || x.background != y.background ||
          x.exclusive != y.exclusive || x.memory_node != y.memory_node || x.allowed != y.allowed)
        return false;
      for (int v = 0; v < n; ++v)
        if (v != a && v != b && weight[a][v] != weight[b][v]) return false;
      return true;
    };
    previous_twin_.assign(p_.units.size(), -1);
    std::vector<int> class_size(n, 1);
    for (std::size_t k = 0; k < order_.size(); ++k) {
      const int t = p_.units[order_[k]].threads[0];
      for (std::size_t j = k; j-- > 0;) {
        const int earlier = p_.units[order_[j]].threads[0];
        if (twins(t, earlier)) {
          previous_twin_[order_[k]] = order_[j];
          class_size[t] = class_size[earlier] + 1;
          break;
        }
      }
      use_twins_ = use_twins_ || class_size[t] >= 3;
    }
    // On a topology model the machine symmetry is strong and proves such groups faster; on a
    // measured matrix it is almost absent and twins are what cuts the search.
    use_twins_ = use_twins_ && p_.machine->measured;
  }

  // A CPU whose image under a swap of two empty interchangeable objects comes earlier gives
  // the same subtree as that image: skip it.
  bool symmetric_duplicate(int cpu) const {
    for (std::size_t l = 0; l < sym_.levels.size(); ++l) {
      const SymmetryLevel& level = sym_.levels[l];
      const int o = level.object_of[cpu];
      if (occupied_[l][o] != 0) continue;
      for (int other : level.classes[level.class_of[o]]) {
        if (other == o || occupied_[l][other] != 0) continue;
        if (level.objects[other][level.position[cpu]] < cpu) return true;
      }
    }
    return false;
  }

  double bound(std::size_t depth) const {
    double lb = 0;
    for (std::size_t k = depth; k < order_.size(); ++k)
      for (int t : p_.units[order_[k]].threads) lb += strong_ ? strong_bound(t) : weak_bound(t);
    return lb;
  }

  // Every term at its cheapest: edges to placed threads at their CPU's nearest latency, edges
  // between unplaced threads at the machine's smallest latency.
  double weak_bound(int t) const {
    double lb = min_unary_[t];
    for (const auto& [v, w] : p_.threads[t].neighbours) {
      const int at = state_.cpu_of(v);
      if (at >= 0)
        lb += w * nearest_[at];
      else if (v > t)
        lb += w * p_.min_latency;
    }
    return lb;
  }

  // The thread's cheapest free CPU c, counting placed partners exactly and unplaced partners
  // (which need distinct CPUs other than c) at c's smallest latencies, heaviest partner on the
  // smallest (rearrangement inequality), half of each such edge per end.
  double strong_bound(int t) const {
    const ProblemThread& th = p_.threads[t];
    double own_unit = 0;
    double weights[16];
    int count = 0;
    for (const auto& [v, w] : th.neighbours) {
      if (state_.cpu_of(v) >= 0) continue;
      if (p_.threads[v].unit == th.unit) {
        if (v > t) own_unit += w * p_.min_latency;
      } else if (count < 16) {
        weights[count++] = w;
      }
    }
    std::sort(weights, weights + count, std::greater<double>());
    double best = std::numeric_limits<double>::infinity();
    const int cpus = static_cast<int>(p_.machine->size());
    for (int c = 0; c < cpus; ++c) {
      if (state_.units_on(c) > 0 || !p_.allowed(t, c)) continue;
      // An interchangeable twin of an earlier CPU has the same value (the swap fixes every
      // placed thread).
      if (!use_twins_ && symmetric_duplicate(c)) continue;
      double value = p_.unary(t, c);
      for (const auto& [v, w] : th.neighbours) {
        const int at = state_.cpu_of(v);
        if (at >= 0) value += w * p_.machine->latency(c, at);
      }
      const auto& near = sorted_[c];
      for (int i = 0; i < count && value < best; ++i)
        value += 0.5 * weights[i] * near[std::min<std::size_t>(i, near.size() - 1)];
      best = std::min(best, value);
    }
    return (std::isfinite(best) ? best : weak_bound(t) - own_unit) + own_unit;
  }

  bool out_of_time() {
    // A node's bound visits every CPU, so a node on 512 CPUs costs up to a millisecond (and
    // several on a busy machine): checking every 1,024 nodes overran a 1.5 s limit by half a
    // second. The clock is read about every 4,096 CPU visits instead (every 8 nodes at 512 CPUs,
    // every 512 at 8), a few tens of ns against that work.
    if ((nodes_ & check_mask_) == 0 && std::chrono::steady_clock::now() > stop_at_) stopped_ = true;
    return stopped_;
  }

  void search(std::size_t depth) {
    ++nodes_;
    if (out_of_time()) return;
    if (depth == order_.size()) {
      if (state_.total() < best_cost_ - tolerance()) {
        best_cost_ = state_.total();
        best_.cpu_of = state_.assignment();
        best_.cost = best_cost_;
      }
      return;
    }
    const int unit = order_[depth];
    const bool group = p_.units[unit].group();
    const int anchors =
        group ? static_cast<int>(p_.core_cpus.size()) : static_cast<int>(p_.machine->size());
    std::vector<std::pair<double, int>> children;
    for (int a = 0; a < anchors; ++a) {
      if (!state_.unit_fits(unit, a)) continue;
      if (!group && use_twins_ && previous_twin_[unit] >= 0 &&
          a <= state_.cpu_of(p_.units[previous_twin_[unit]].threads[0]))
        continue;
      if (!group && !use_twins_ && symmetric_duplicate(a)) continue;
      children.emplace_back(state_.place_unit(unit, a), a);
      state_.lift_unit(unit);
    }
    std::stable_sort(children.begin(), children.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [added, anchor] : children) {
      if (state_.total() + added >= best_cost_ - tolerance()) break;  // sorted: the rest cost more
      state_.place_unit(unit, anchor);
      mark(unit, +1);  // before the bound: it skips CPUs by the occupancy of the objects
      if (state_.total() + bound(depth + 1) < best_cost_ - tolerance()) search(depth + 1);
      mark(unit, -1);
      state_.lift_unit(unit);
      if (stopped_) return;
    }
  }

  double tolerance() const {
    return std::isfinite(best_cost_) ? 1e-9 * (1 + std::abs(best_cost_)) : 0.0;
  }

  const Problem& p_;
  PlacementState state_;
  MachineSymmetry sym_;
  SolveOptions options_;
  std::vector<int> order_;
  std::vector<double> nearest_, min_unary_;
  std::vector<std::vector<double>> sorted_;  ///< per CPU: smallest latencies to other CPUs
  bool strong_ = false;
  std::vector<int> previous_twin_;  ///< per unit: the twin placed just before it, or -1
  bool use_twins_ = false;
  std::vector<std::vector<int>> occupied_;
  Solution best_;
  double best_cost_ = std::numeric_limits<double>::infinity();
  std::uint64_t nodes_ = 0;
  bool stopped_ = false;
  std::chrono::steady_clock::time_point stop_at_;
  std::uint64_t check_mask_ = 0;  ///< the clock is read when (nodes_ & check_mask_) == 0
};

}  // namespace

Solution solve_exact(const Problem& problem, const Solution& incumbent,
                     const SolveOptions& options) {
  const SolveOptions limited = within_deadline(options);
  const auto stop_at = std::chrono::steady_clock::now() +
                       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(limited.exact_time_limit_s));
  return BranchAndBound(problem, incumbent, limited, stop_at).run();
}

}  // namespace threadmap::plan
