// Greedy construction and local search (see solvers.hpp). Built for large workloads: 1,024
// threads on 512 CPUs must plan in well under 2 s on a small VM, so every step is O(edges of
// the thread moved) thanks to PlacementState, and candidate moves are limited to the cache
// domains of a thread's heaviest partners plus a few random CPUs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <queue>
#include <random>
#include <tuple>

#include "src/plan/placement_state.hpp"
#include "src/plan/solvers.hpp"

namespace threadmap::plan {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Nearest free CPU of each CPU, by latency, found lazily: during the greedy construction CPUs
// only fill up, so each CPU's pointer into its sorted partner list only moves forward.
class NearestFree {
 public:
  explicit NearestFree(const MachineModel& m) : m_(m), order_(m.size()), next_(m.size(), 0) {}

  double latency_from(int cpu, const PlacementState& state) {
    auto& order = order_[cpu];
    if (order.empty()) {
      order.reserve(m_.size());
      for (int j = 0; j < static_cast<int>(m_.size()); ++j)
        if (j != cpu) order.push_back(j);
      std::stable_sort(order.begin(), order.end(),
                       [&](int a, int b) { return m_.latency(cpu, a) < m_.latency(cpu, b); });
    }
    std::size_t& k = next_[cpu];
    while (k < order.size() && state.units_on(order[k]) > 0) ++k;
    return k < order.size() ? m_.latency(cpu, order[k]) : m_.latency(cpu, cpu);
  }

 private:
  const MachineModel& m_;
  std::vector<std::vector<int>> order_;
  std::vector<std::size_t> next_;
};

double unplaced_weight(const Problem& p, const PlacementState& s, int t) {
  double w = 0;
  for (const auto& [v, weight] : p.threads[t].neighbours)
    if (s.cpu_of(v) < 0 && p.threads[v].unit != p.threads[t].unit) w += weight;
  return w;
}

std::string thread_limits(const Problem& p, int t) {
  return p.threads[t].allowed.empty() ? "no free CPU left" : "none of its CPUs is free";
}

}  // namespace

std::vector<int> placement_order(const Problem& p) {
  const int units = static_cast<int>(p.units.size());
  std::vector<double> total(units, 0), conn(units, 0);
  std::vector<int> critical(units, 0);
  for (int u = 0; u < units; ++u)
    for (int t : p.units[u].threads) {
      critical[u] += p.threads[t].latency_critical;
      for (const auto& [v, w] : p.threads[t].neighbours)
        if (p.threads[v].unit != u) total[u] += w;
    }
  using Entry = std::tuple<double, int, double, int>;  // conn, critical, total, -unit
  std::priority_queue<Entry> heap;
  for (int u = 0; u < units; ++u) heap.emplace(0.0, critical[u], total[u], -u);
  std::vector<char> placed(units, 0);
  std::vector<int> order;
  order.reserve(units);
  while (!heap.empty()) {
    auto [c, crit, tot, neg] = heap.top();
    heap.pop();
    const int u = -neg;
    if (placed[u] || c != conn[u]) continue;  // stale entry
    placed[u] = 1;
    order.push_back(u);
    for (int t : p.units[u].threads)
      for (const auto& [v, w] : p.threads[t].neighbours) {
        const int vu = p.threads[v].unit;
        if (placed[vu]) continue;
        conn[vu] += w;
        heap.emplace(conn[vu], critical[vu], total[vu], -vu);
      }
  }
  return order;
}

Result<Solution> solve_greedy(const Problem& p) {
  const MachineModel& m = *p.machine;
  const int cpus = static_cast<int>(m.size());
  PlacementState state(p);
  NearestFree nearest(m);
  const int total_units = static_cast<int>(p.units.size());
  // With more threads than CPUs some must share; once that is certain, sharing a CPU with a
  // partner costs no extra rule break, so the greedy may stack up to the even share per CPU.
  const int even_share = (total_units + cpus - 1) / cpus;
  int remaining = total_units;
  for (int u : placement_order(p)) {
    const Unit& unit = p.units[u];
    double best = std::numeric_limits<double>::infinity();
    int best_anchor = -1;
    int free_cpus = 0;
    for (int c = 0; c < cpus; ++c) free_cpus += state.units_on(c) == 0;
    const bool sharing_forced = p.oversubscribe && remaining-- > free_cpus;
    if (!unit.group()) {
      const int t = unit.threads[0];
      const double ahead = unplaced_weight(p, state, t);
      for (int c = 0; c < cpus; ++c) {
        if (!state.can_take(t, c)) continue;
        double score = state.add_cost(t, c);
        if (sharing_forced && state.units_on(c) > 0 && state.units_on(c) < even_share)
          score -= p.penalties.hard;
        if (ahead > 0) score += ahead * nearest.latency_from(c, state);
        if (score < best - 1e-9) best = score, best_anchor = c;
      }
    } else {
      for (int core = 0; core < static_cast<int>(p.core_cpus.size()); ++core) {
        if (!state.unit_fits(u, core)) continue;
        double score = state.place_unit(u, core);
        for (int t : unit.threads) {
          const double ahead = unplaced_weight(p, state, t);
          if (ahead > 0) score += ahead * nearest.latency_from(state.cpu_of(t), state);
        }
        state.lift_unit(u);
        if (score < best - 1e-9) best = score, best_anchor = core;
      }
    }
    if (best_anchor < 0)
      return Error::invalid("cannot place thread '" + p.threads[unit.threads[0]].name +
                            "': " + thread_limits(p, unit.threads[0]) +
                            (unit.group() ? " (its share-core group needs a free core)" : ""));
    state.place_unit(u, best_anchor);
  }
  Solution s;
  s.cpu_of = state.assignment();
  s.cost = evaluate(p, s.cpu_of).objective();
  s.solver = "greedy";
  return s;
}

namespace {

// One local search: the placement being improved, the single-thread units on each CPU (for
// swaps) and each cache domain's CPUs (for candidates). Each step lifts one unit and puts it
// back where the cost drops most: a move for a share-core group, a move or a swap with a
// thread already there for a single thread.
class LocalSearch {
 public:
  LocalSearch(const Problem& p, const Solution& start, const SolveOptions& options)
      : p_(p),
        m_(*p.machine),
        cpus_(static_cast<int>(m_.size())),
        state_(p),
        rng_(options.seed),
        on_cpu_(cpus_),
        domain_cpus_(m_.domain_count),
        visit_(p.units.size()),
        seen_(cpus_, 0) {
    for (int u = 0; u < static_cast<int>(p.units.size()); ++u) {
      const Unit& unit = p.units[u];
      const int cpu = start.cpu_of[unit.threads[0]];
      state_.place_unit(u, unit.group() ? m_.cpus[cpu].core : cpu);
      if (!unit.group()) on_cpu_[cpu].push_back(u);
      visit_[u] = u;
    }
    for (int c = 0; c < cpus_; ++c) domain_cpus_[m_.cpus[c].domain].push_back(c);
    eps_ = 1e-9 * (1 + std::abs(state_.total()));
  }

  /// One pass over every unit in random order; true when something moved. Stops early (and
  /// sets out.stopped_by_time) once the time limit is reached and out.nodes has reached
  /// `stoppable_at` (the moves the search is owed whatever the clock says).
  bool pass(Solution& out, Clock::time_point clock_start, double time_limit_s,
            std::uint64_t stoppable_at) {
    std::shuffle(visit_.begin(), visit_.end(), rng_);
    bool improved = false;
    for (int u : visit_) {
      if (out.nodes >= stoppable_at && seconds_since(clock_start) > time_limit_s) {
        out.stopped_by_time = true;
        break;
      }
      collect_candidates(u);
      const bool moved = p_.units[u].group() ? move_group(u, out) : move_single(u, out);
      improved = improved || moved;
    }
    return improved;
  }

  std::vector<int> assignment() const { return state_.assignment(); }

 private:
  // Candidate CPUs: all of them on small machines, else the cache domains of the heaviest
  // partners and of the unit itself, plus a few random CPUs to escape local minima.
  void collect_candidates(int u) {
    candidates_.clear();
    auto take = [&](int c) {
      if (!seen_[c]) seen_[c] = 1, candidates_.push_back(c);
    };
    const Unit& unit = p_.units[u];
    if (cpus_ <= 96) {
      for (int c = 0; c < cpus_; ++c) take(c);
    } else {
      std::vector<std::pair<double, int>> heavy;
      for (int t : unit.threads)
        for (const auto& [v, w] : p_.threads[t].neighbours) heavy.emplace_back(w, v);
      const std::size_t keep = std::min<std::size_t>(heavy.size(), 4);
      std::partial_sort(heavy.begin(), heavy.begin() + static_cast<std::ptrdiff_t>(keep),
                        heavy.end(),
                        [](const auto& a, const auto& b) { return a.first > b.first; });
      for (std::size_t k = 0; k < keep; ++k)
        for (int c : domain_cpus_[m_.cpus[state_.cpu_of(heavy[k].second)].domain]) take(c);
      for (int c : domain_cpus_[m_.cpus[state_.cpu_of(unit.threads[0])].domain]) take(c);
      std::uniform_int_distribution<int> any(0, cpus_ - 1);
      for (int k = 0; k < 16; ++k) take(any(rng_));
    }
    for (int c : candidates_) seen_[c] = 0;
  }

  // A share-core group moves whole to the candidate core that lowers the cost most.
  bool move_group(int u, Solution& out) {
    const int from = state_.anchor_of(u);
    const double lifted = state_.lift_unit(u);
    double best = -eps_;
    int best_core = -1;
    for (int c : candidates_) {
      const int core = m_.cpus[c].core;
      if (core == from || !state_.unit_fits(u, core)) continue;
      const double delta = state_.place_unit(u, core) - lifted;
      state_.lift_unit(u);
      ++out.nodes;
      if (delta < best) best = delta, best_core = core;
    }
    state_.place_unit(u, best_core >= 0 ? best_core : from);
    return best_core >= 0;
  }

  // A single thread moves to a free candidate CPU or swaps with a thread sitting there (the
  // common case on a full machine), whichever lowers the cost most.
  bool move_single(int u, Solution& out) {
    const int t = p_.units[u].threads[0];
    const int from = state_.cpu_of(t);
    const double removed = state_.lift_unit(u);
    double best = -eps_;
    int best_cpu = -1, best_swap = -1;
    for (int c : candidates_) {
      if (c == from) continue;
      ++out.nodes;
      if (state_.can_take(t, c)) {
        const double delta = state_.add_cost(t, c) - removed;
        if (delta < best) best = delta, best_cpu = c, best_swap = -1;
      }
      int tried = 0;
      for (int other_unit : on_cpu_[c]) {
        if (++tried > 4) break;
        const int other = p_.units[other_unit].threads[0];
        if (!p_.allowed(t, c) || !p_.allowed(other, from)) continue;
        const double other_removed = state_.lift_unit(other_unit);
        const double add_t = state_.place_unit(u, c);
        const double add_other = state_.add_cost(other, from);
        state_.lift_unit(u);
        state_.place_unit(other_unit, c);
        const double delta = add_t + add_other - removed - other_removed;
        if (delta < best) best = delta, best_cpu = c, best_swap = other_unit;
      }
    }
    if (best_cpu < 0) {
      state_.place_unit(u, from);
      return false;
    }
    drop(from, u);
    if (best_swap >= 0) {
      drop(best_cpu, best_swap);
      state_.lift_unit(best_swap);
      state_.place_unit(best_swap, from);
      on_cpu_[from].push_back(best_swap);
    }
    state_.place_unit(u, best_cpu);
    on_cpu_[best_cpu].push_back(u);
    return true;
  }

  void drop(int cpu, int u) {
    auto& v = on_cpu_[cpu];
    v.erase(std::find(v.begin(), v.end(), u));
  }

  const Problem& p_;
  const MachineModel& m_;
  const int cpus_;
  PlacementState state_;
  std::mt19937_64 rng_;
  std::vector<std::vector<int>> on_cpu_;       // single-thread units by CPU
  std::vector<std::vector<int>> domain_cpus_;  // CPUs of each cache domain
  std::vector<int> visit_;  // units in this pass's order (each pass reshuffles the last)
  std::vector<int> candidates_;
  std::vector<char> seen_;
  double eps_ = 0;
};

}  // namespace

Solution improve_local(const Problem& p, Solution start, const SolveOptions& given) {
  const auto clock_start = Clock::now();
  const SolveOptions options = within_deadline(given);
  LocalSearch search(p, start, options);
  Solution out = std::move(start);
  out.solver += " + local search";
  const std::uint64_t stoppable_at = out.nodes + options.min_steps;
  for (int pass = 0; pass < options.local_max_passes; ++pass) {
    const bool improved = search.pass(out, clock_start, options.local_time_limit_s, stoppable_at);
    out.passes = pass + 1;
    if (!improved || out.stopped_by_time) break;
  }
  std::vector<int> improved_cpus = search.assignment();
  const double cost = evaluate(p, improved_cpus).objective();
  if (cost < out.cost) {
    out.cpu_of = std::move(improved_cpus);
    out.cost = cost;
  }
  return out;
}

}  // namespace threadmap::plan
