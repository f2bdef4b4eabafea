// `report --budget`: every part gets a share, and the shares add up to the stated budget (so the
// page and report.json can show them side by side with the time each part took).
#include "src/report/report_budget.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace threadmap::report {
namespace {

double total(const std::vector<PartShare>& shares) {
  return std::accumulate(shares.begin(), shares.end(), 0.0,
                         [](double sum, const PartShare& p) { return sum + p.share_s; });
}

TEST(ReportBudget, EveryPartGetsAShareAndTheSharesAddUpToTheBudget) {
  const std::vector<std::string> benches{"contention", "pingpong", "smt", "migrate", "spawn"};
  for (double budget : {7.0, 20.0, 60.0, 3600.0}) {
    std::vector<PartShare> shares = split_budget(budget, benches);
    ASSERT_EQ(shares.size(), benches.size() + 3);
    EXPECT_EQ(shares.front().part, "topology");
    EXPECT_EQ(shares[1].part, "latency");
    EXPECT_EQ(shares[2].part, "bench contention");
    EXPECT_EQ(shares.back().part, "recommendations");
    EXPECT_NEAR(total(shares), budget, 1e-9 * budget);
    for (const PartShare& p : shares) EXPECT_GT(p.share_s, 0) << p.part;
  }
}

TEST(ReportBudget, NoBenchTakesMostOfTheBudget) {
  // Before the budget, the spawn bench took 46 of 58 s: now it is bounded by its share.
  std::vector<PartShare> shares = split_budget(60, {"contention", "spawn"});
  for (const PartShare& p : shares)
    if (p.part.starts_with("bench ")) {
      EXPECT_LT(p.share_s, 30) << p.part;
    }
  EXPECT_DOUBLE_EQ(shares[3].share_s, 2 * shares[2].share_s);  // spawn counts twice
}

TEST(ReportBudget, QuickHasTheSmallerDefault) {
  EXPECT_LT(default_budget_s(true), default_budget_s(false));
  EXPECT_DOUBLE_EQ(default_budget_s(false), 60);
}

}  // namespace
}  // namespace threadmap::report
