// Branch and bound (see solvers.hpp). Units are placed in placement_order(); children are tried
// cheapest first; a branch is cut when its cost so far plus an admissible bound on the rest is
// no better than the best complete placement. The bound for an unplaced thread is its cheapest
// kind/NUMA/isolation cost, plus each edge to a placed thread at that thread's nearest-CPU
// latency, plus each edge between unplaced threads at the machine's smallest latency; penalties
// count as zero. Interchangeable machine parts are tried once (symmetry.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "src/plan/placement_state.hpp"
#include "src/plan/solvers.hpp"
#include "src/plan/symmetry.hpp"

namespace threadmap::plan {
namespace {

class BranchAndBound {
 public:
  BranchAndBound(const Problem& p, const Solution& incumbent, const SolveOptions& options)
      : p_(p), state_(p), sym_(find_symmetry(p)), options_(options), order_(placement_order(p)) {
    const MachineModel& m = *p.machine;
    const int cpus = static_cast<int>(m.size());
    nearest_.assign(cpus, std::numeric_limits<double>::infinity());
    for (int a = 0; a < cpus; ++a)
      for (int b = 0; b < cpus; ++b) nearest_[a] = std::min(nearest_[a], m.latency(a, b));
    min_unary_.assign(p.size(), std::numeric_limits<double>::infinity());
    for (int t = 0; t < p.size(); ++t)
      for (int c = 0; c < cpus; ++c)
        if (p.allowed(t, c)) min_unary_[t] = std::min(min_unary_[t], p.unary(t, c));
    occupied_.resize(sym_.levels.size());
    for (std::size_t l = 0; l < sym_.levels.size(); ++l)
      occupied_[l].assign(sym_.levels[l].objects.size(), 0);
    if (!incumbent.cpu_of.empty()) {
      best_ = incumbent;
      best_cost_ = incumbent.cost;
    }
    start_ = std::chrono::steady_clock::now();
  }

  Solution run() {
    search(0);
    Solution out = best_;
    out.solver = "branch and bound";
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
      for (int t : p_.units[order_[k]].threads) {
        lb += min_unary_[t];
        for (const auto& [v, w] : p_.threads[t].neighbours) {
          const int at = state_.cpu_of(v);
          if (at >= 0) lb += w * nearest_[at];
          else if (v > t) lb += w * p_.min_latency;
        }
      }
    return lb;
  }

  bool out_of_time() {
    if ((nodes_ & 1023) == 0) {
      double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      if (spent > options_.exact_time_limit_s) stopped_ = true;
    }
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
    const int anchors = group ? static_cast<int>(p_.core_cpus.size()) : static_cast<int>(p_.machine->size());
    std::vector<std::pair<double, int>> children;
    for (int a = 0; a < anchors; ++a) {
      if (!state_.unit_fits(unit, a)) continue;
      if (!group && symmetric_duplicate(a)) continue;
      children.emplace_back(state_.place_unit(unit, a), a);
      state_.lift_unit(unit);
    }
    std::stable_sort(children.begin(), children.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [added, anchor] : children) {
      if (state_.total() + added >= best_cost_ - tolerance()) break;  // sorted: the rest cost more
      state_.place_unit(unit, anchor);
      if (state_.total() + bound(depth + 1) < best_cost_ - tolerance()) {
        mark(unit, +1);
        search(depth + 1);
        mark(unit, -1);
      }
      state_.lift_unit(unit);
      if (stopped_) return;
    }
  }

  double tolerance() const { return std::isfinite(best_cost_) ? 1e-9 * (1 + std::abs(best_cost_)) : 0.0; }

  const Problem& p_;
  PlacementState state_;
  MachineSymmetry sym_;
  SolveOptions options_;
  std::vector<int> order_;
  std::vector<double> nearest_, min_unary_;
  std::vector<std::vector<int>> occupied_;
  Solution best_;
  double best_cost_ = std::numeric_limits<double>::infinity();
  std::uint64_t nodes_ = 0;
  bool stopped_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

Solution solve_exact(const Problem& problem, const Solution& incumbent, const SolveOptions& options) {
  return BranchAndBound(problem, incumbent, options).run();
}

}  // namespace threadmap::plan
