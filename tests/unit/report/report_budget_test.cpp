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

// The spawn bench, last, stopped at 3 rounds of its share while the report had used 18-25 s of
// its 60: time the parts before it did not use now goes to it.
TEST(ReportBudget, UnusedTimeGoesToTheParts) {
  const std::vector<std::string> benches{"contention", "pingpong", "smt", "migrate", "spawn"};
  std::vector<PartShare> shares = split_budget(60, benches);
  double planned_spawn = 0, before_spawn = 0;
  for (const PartShare& p : shares) {
    if (p.part == "bench spawn") planned_spawn = p.share_s;
    if (p.part != "bench spawn" && p.part != "recommendations") before_spawn += p.share_s;
  }
  // On schedule: the planned share.
  EXPECT_NEAR(share_with_carry(shares, "bench spawn", before_spawn, 60), planned_spawn, 1e-9);
  // The parts before used 15 s instead of their ~43: spawn gets the rest but the
  // recommendations' sliver.
  const double carried = share_with_carry(shares, "bench spawn", 15, 60);
  EXPECT_GT(carried, 40);
  EXPECT_LT(carried, 45);
  // Overran: less, but never nothing (a share of 0 would mean no limit).
  EXPECT_NEAR(share_with_carry(shares, "bench spawn", 70, 60), 0.6, 1e-9);
  EXPECT_DOUBLE_EQ(share_with_carry(shares, "bench nope", 0, 60), 0);
}

TEST(ReportBudget, QuickHasTheSmallerDefault) {
  EXPECT_LT(default_budget_s(true), default_budget_s(false));
  EXPECT_DOUBLE_EQ(default_budget_s(false), 60);
}

}  // namespace
}  // namespace threadmap::report
