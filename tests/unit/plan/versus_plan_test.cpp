// A placement's cost against the plan's, as the cost tables say it (src/plan/versus_plan.hpp).
#include "src/plan/versus_plan.hpp"

#include <gtest/gtest.h>

namespace threadmap::plan {
namespace {

CostBreakdown cost(double communication, int smt_pairs = 0) {
  CostBreakdown c;
  c.communication = communication;
  c.compute_smt_pairs = smt_pairs;
  return c;
}

TEST(VersusPlan, RatioOfTotals) {
  const VersusPlan v = versus_plan(cost(300), cost(200));
  EXPECT_EQ(v.kind, VersusPlan::Kind::ratio);
  EXPECT_DOUBLE_EQ(v.ratio, 1.5);
}

TEST(VersusPlan, MoreRuleBreaksIsNotCheaperWhateverItsTotal) {
  EXPECT_EQ(versus_plan(cost(10, 1), cost(200)).kind, VersusPlan::Kind::infeasible);
}

TEST(VersusPlan, PlanThatCostsNothing) {
  EXPECT_EQ(versus_plan(cost(5), cost(0)).kind, VersusPlan::Kind::worse);
  EXPECT_EQ(versus_plan(cost(0), cost(0)).kind, VersusPlan::Kind::same);
}

}  // namespace
}  // namespace threadmap::plan
