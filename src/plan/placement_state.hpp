// A partial placement that knows its own cost. Every term of the cost model is a sum over
// single threads or pairs of threads, so the cost of adding one thread given the others is
// exact and cheap (O(its edges)); solvers build, move and swap threads through this class and
// never recompute the whole cost.
#pragma once

#include <vector>

#include "src/plan/problem.hpp"

namespace threadmap::plan {

class PlacementState {
 public:
  explicit PlacementState(const Problem& problem);

  /// Exact increase of the total cost if unplaced thread `t` went to candidate `cpu` now.
  double add_cost(int t, int cpu) const;
  /// Whether `t` may go to `cpu`: its own CPU limit, and the CPU is free (or holds a member of
  /// its own share-core group, or oversubscription is allowed).
  bool can_take(int t, int cpu) const;
  /// Places unplaced thread `t` on `cpu`.
  void add(int t, int cpu);
  /// Unplaces thread `t`.
  void remove(int t);

  /// Whether the unit fits when anchored at `anchor` (a CPU for a single thread, a core for a
  /// share-core group).
  bool unit_fits(int unit, int anchor) const;
  /// Places every member of an unplaced unit at `anchor`; returns the cost added.
  double place_unit(int unit, int anchor);
  /// Unplaces every member of a placed unit; returns the cost removed (>= 0 in practice).
  double lift_unit(int unit);
  /// Current anchor of a placed unit, -1 when unplaced.
  int anchor_of(int unit) const;

  int cpu_of(int t) const { return cpu_of_[t]; }
  const std::vector<int>& assignment() const { return cpu_of_; }
  double total() const { return total_; }
  /// Distinct units on candidate `cpu`.
  int units_on(int cpu) const { return units_on_[cpu]; }
  const Problem& problem() const { return p_; }

 private:
  bool unit_member_on(int t, int cpu) const;
  void count(int t, int cpu, int sign);

  const Problem& p_;
  std::vector<int> cpu_of_;
  std::vector<int> units_on_;
  std::vector<int> compute_, threads_, exclusive_, bg_core_, lc_core_, bg_dom_, lc_dom_;
  double total_ = 0;
};

}  // namespace threadmap::plan
