#include "src/plan/versus_plan.hpp"

namespace threadmap::plan {

VersusPlan versus_plan(const CostBreakdown& placement, const CostBreakdown& plan) {
  if (placement.rule_breaks() > plan.rule_breaks()) return {VersusPlan::Kind::infeasible, 0};
  const double base = plan.total();
  if (base > 0) return {VersusPlan::Kind::ratio, placement.total() / base};
  return {placement.total() > 0 ? VersusPlan::Kind::worse : VersusPlan::Kind::same, 0};
}

}  // namespace threadmap::plan
