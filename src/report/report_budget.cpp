#include "src/report/report_budget.hpp"

#include <algorithm>
#include <numeric>

namespace threadmap::report {

double default_budget_s(bool quick) { return quick ? 20 : 60; }

std::vector<PartShare> split_budget(double budget_s, const std::vector<std::string>& bench_names) {
  std::vector<PartShare> shares;
  shares.push_back({"topology", 0.02 * budget_s});
  shares.push_back({"latency", 0.40 * budget_s});
  const double for_benches = budget_s * (1 - 0.02 - 0.40 - 0.02);
  double weights = 0;
  for (const std::string& name : bench_names) weights += name == "spawn" ? 2 : 1;
  for (const std::string& name : bench_names)
    shares.push_back({"bench " + name, for_benches * (name == "spawn" ? 2 : 1) / weights});
  // The last part takes what rounding left, so the shares add up to the budget exactly.
  const double given =
      std::accumulate(shares.begin(), shares.end(), 0.0,
                      [](double sum, const PartShare& p) { return sum + p.share_s; });
  shares.push_back({"recommendations", budget_s - given});
  return shares;
}

double share_with_carry(const std::vector<PartShare>& planned, const std::string& part,
                        double spent_s, double budget_s) {
  std::size_t at = planned.size();
  for (std::size_t i = 0; i < planned.size(); ++i)
    if (planned[i].part == part) at = i;
  if (at == planned.size()) return 0;
  double from_here = 0;
  for (std::size_t i = at; i < planned.size(); ++i) from_here += planned[i].share_s;
  if (from_here <= 0) return 0;
  const double left = budget_s - spent_s;
  return std::max(0.01 * budget_s, planned[at].share_s * left / from_here);
}

}  // namespace threadmap::report
