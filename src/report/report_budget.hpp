// The report's time budget (`report --budget`): how the stated total is shared between its
// parts, so that no part (the spawn bench took 46 of 58 s before this) eats the others' time.
// Each part gets a share and stops by its own rule within it: the latency measurement derives
// its time per CPU pair from its share, a bench stops planned and added rounds when the next
// round would not fit (experiments::BenchOptions::share_s).
#pragma once

#include <string>
#include <vector>

namespace threadmap::report {

/// The budget when none is given: 60 s, or 20 s with quick.
double default_budget_s(bool quick);

/// One part's share of the budget.
struct PartShare {
  std::string part;  ///< "topology", "latency", "bench NAME", "recommendations"
  double share_s = 0;
};

/// Splits `budget_s` over, in this order, the topology, the latency matrix, each bench of
/// `bench_names` and the recommendations. Weights: topology and recommendations 2% each (they
/// measure nothing), latency 40%, the benches the rest, the spawn bench counting twice (it runs
/// a program per round and variant). The shares add up to `budget_s` exactly.
std::vector<PartShare> split_budget(double budget_s, const std::vector<std::string>& bench_names);

/// The share of `part` when the parts before it spent `spent_s` of `budget_s`: what is left,
/// split over this part and the ones after it in the proportions of `planned` (split_budget).
/// Time a part did not use goes to the parts after it (the spawn bench, last, gets what the
/// quick parts left), and a part that overran takes it from them. At least 1% of the budget,
/// so a share is always a limit. 0 when `part` is not in `planned`.
double share_with_carry(const std::vector<PartShare>& planned, const std::string& part,
                        double spent_s, double budget_s);

}  // namespace threadmap::report
