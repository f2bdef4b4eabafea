// Choosing and chaining the solvers, and the perturbation step of iterated local search.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "src/plan/solvers.hpp"

namespace threadmap::plan {
namespace {

// Swaps a few single threads with threads sitting in the cache domain of one of their partners:
// big enough to leave a local minimum, small enough to keep most of the structure.
std::vector<int> kick(const Problem& p, const std::vector<int>& cpu_of, std::mt19937_64& rng) {
  const MachineModel& m = *p.machine;
  std::vector<int> out = cpu_of;
  const int n = p.size();
  std::vector<std::vector<int>> domain_threads(m.domain_count);
  for (int t = 0; t < n; ++t)
    if (!p.units[p.threads[t].unit].group()) domain_threads[m.cpus[out[t]].domain].push_back(t);
  std::vector<std::vector<int>> domain_cpus(m.domain_count);
  for (int c = 0; c < static_cast<int>(m.size()); ++c) domain_cpus[m.cpus[c].domain].push_back(c);
  std::vector<char> used(m.size(), 0);
  for (int t = 0; t < n; ++t) used[out[t]] = 1;
  std::bernoulli_distribution coin(0.5);
  std::uniform_int_distribution<int> pick_thread(0, n - 1);
  const int swaps = std::max(2, n / 40);
  for (int k = 0; k < swaps; ++k) {
    const int a = pick_thread(rng);
    if (p.units[p.threads[a].unit].group() || p.threads[a].neighbours.empty()) continue;
    const auto& nb = p.threads[a].neighbours;
    const int partner = nb[std::uniform_int_distribution<std::size_t>(0, nb.size() - 1)(rng)].first;
    const int domain = m.cpus[out[partner]].domain;
    if (coin(rng)) {  // move next to the partner's cache onto a free CPU
      const auto& cpus = domain_cpus[domain];
      const int c = cpus[std::uniform_int_distribution<std::size_t>(0, cpus.size() - 1)(rng)];
      if (used[c] || !p.allowed(a, c)) continue;
      used[out[a]] = 0;
      used[c] = 1;
      out[a] = c;
      continue;
    }
    const auto& near = domain_threads[domain];
    if (near.empty()) continue;
    const int b = near[std::uniform_int_distribution<std::size_t>(0, near.size() - 1)(rng)];
    if (a == b || !p.allowed(a, out[b]) || !p.allowed(b, out[a])) continue;
    std::swap(out[a], out[b]);
  }
  return out;
}

}  // namespace

SolveOptions within_deadline(const SolveOptions& options) {
  SolveOptions out = options;
  if (options.deadline == std::chrono::steady_clock::time_point::max()) return out;
  const double left = std::max(
      0.0,
      std::chrono::duration<double>(options.deadline - std::chrono::steady_clock::now()).count());
  out.local_time_limit_s = std::min(out.local_time_limit_s, left);
  out.exact_time_limit_s = std::min(out.exact_time_limit_s, left);
  return out;
}

Solution iterate_local(const Problem& p, Solution start, const SolveOptions& given) {
  const SolveOptions options = within_deadline(given);
  const auto begin = std::chrono::steady_clock::now();
  auto spent = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  };
  const double start_cost = start.cost;
  const std::string start_name = start.start;
  const std::uint64_t owed_until = start.nodes + options.min_steps;
  Solution best = improve_local(p, std::move(start), options);
  std::mt19937_64 rng(options.seed * 0x9E3779B97F4A7C15ull + 7);
  // Small workloads get many cheap rounds, large ones a few expensive ones (and the clock).
  const int rounds = options.kick_rounds > 0 ? options.kick_rounds
                                             : std::clamp(4000 / std::max(1, p.size()), 12, 400);
  for (int round = 0; round < rounds && !best.stopped_by_time; ++round) {
    SolveOptions left = options;
    // The moves still owed: the clock may not end the search before they are tried.
    left.min_steps = owed_until > best.nodes ? owed_until - best.nodes : 0;
    left.local_time_limit_s = std::max(0.0, options.local_time_limit_s - spent());
    if (left.local_time_limit_s <= 0 && left.min_steps == 0) {
      best.stopped_by_time = true;
      break;
    }
    Solution kicked;
    kicked.cpu_of = kick(p, best.cpu_of, rng);
    kicked.cost = evaluate(p, kicked.cpu_of).objective();
    kicked.solver = best.solver;
    Solution improved = improve_local(p, std::move(kicked), left);
    best.nodes += improved.nodes;
    best.passes += improved.passes;
    if (improved.cost < best.cost - 1e-9 * (1 + std::abs(best.cost))) {
      improved.nodes = best.nodes;
      improved.passes = best.passes;
      improved.solver = best.solver;
      best = std::move(improved);
    } else if (improved.stopped_by_time) {
      best.stopped_by_time = true;
    }
  }
  best.solver = "greedy + iterated local search";
  best.start = start_name;
  best.improved_on_start = best.cost < start_cost - 1e-9 * (1 + std::abs(start_cost));
  return best;
}

Result<Solution> solve(const Problem& p, const SolveOptions& options) {
  auto greedy = solve_greedy(p);
  if (!greedy) return greedy.error();
  Solution best = iterate_local(p, std::move(*greedy), options);
  if (p.size() <= options.exact_max_threads && !best.stopped_by_time) {
    Solution exact = solve_exact(p, best, within_deadline(options));
    if (exact.cost <= best.cost + 1e-9 * (1 + std::abs(best.cost))) {
      exact.start = best.start;
      exact.improved_on_start =
          best.improved_on_start || exact.cost < best.cost - 1e-9 * (1 + std::abs(best.cost));
      return exact;
    }
  }
  return best;
}

}  // namespace threadmap::plan
