// The search budget the wall clock cannot take away (SolveOptions::min_steps): under a time limit
// that has run out before the search starts, as on a heavily loaded machine, the plan still
// searches the moves it is owed and beats every placement it could have started from; with no
// moves owed it returns its start and says which.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "src/plan/plan_file.hpp"
#include "tests/unit/plan/plan_test_util.hpp"

namespace threadmap::plan::test {
namespace {

// Written for this test: a server workload like bench/plan's (a latency-critical dispatcher
// feeding chains of 8 stages, weight 10 between neighbours; compute workers; background
// housekeepers), sized to fill every CPU, where the greedy start leaves room to improve.
WorkloadSpec chains_workload(int threads) {
  WorkloadSpec spec;
  spec.source = "chains workload, " + std::to_string(threads) + " threads";
  ThreadSpec dispatch;
  dispatch.name = "dispatch";
  dispatch.latency_critical = true;
  spec.threads.push_back(dispatch);
  const int workers = threads / 8, background = threads / 32;
  const int chains = (threads - 1 - workers - background) / 8;
  for (int c = 0; c < chains; ++c)
    for (int s = 0; s < 8; ++s) {
      ThreadSpec t;
      t.name = "c" + std::to_string(c) + "s" + std::to_string(s);
      const int index = static_cast<int>(spec.threads.size());
      spec.threads.push_back(t);
      spec.edges.push_back(s == 0 ? EdgeSpec{0, index, 1.0, "dispatch"}
                                  : EdgeSpec{index - 1, index, 10.0, "chain"});
    }
  while (static_cast<int>(spec.threads.size()) < threads - background) {
    ThreadSpec t;
    t.name = "worker" + std::to_string(spec.threads.size());
    t.compute = true;
    spec.threads.push_back(t);
  }
  while (static_cast<int>(spec.threads.size()) < threads) {
    ThreadSpec t;
    t.name = "house" + std::to_string(spec.threads.size());
    t.background = true;
    spec.threads.push_back(t);
  }
  return spec;
}

// The largest recorded machine in tests/data: 2 x EPYC 9654, 384 CPUs.
const Topology& big_machine() {
  static const Topology topo =
      load_topology(std::string(THREADMAP_TEST_DATA) + "/topologies/amd-2x-epyc9654-zen4.xml");
  return topo;
}

// Planned with a whole-search time limit that is over before the search begins.
Plan plan_out_of_time(std::uint64_t min_steps) {
  PlanInputs in;
  in.topology = &big_machine();
  in.solve.whole_time_limit_s = 1e-9;
  in.solve.min_steps = min_steps;
  auto plan = make_plan(chains_workload(static_cast<int>(big_machine().pus().size())), in);
  EXPECT_TRUE(plan.ok()) << (plan.ok() ? "" : plan.error().message);
  return plan.ok() ? std::move(*plan) : Plan{};
}

std::vector<int> cpus_of(const Plan& plan) {
  std::vector<int> out;
  for (const auto& a : plan.assignments) out.push_back(a.cpus.first());
  return out;
}

TEST(SearchBudget, NoStepsOwedReturnsTheStartUnimprovedAndSaysWhich) {
  const Plan plan = plan_out_of_time(0);
  ASSERT_EQ(plan.assignments.size(), big_machine().pus().size());
  EXPECT_TRUE(plan.stopped_by_time);
  EXPECT_FALSE(plan.improved_on_start);
  EXPECT_EQ(plan.search_nodes, 0u);
  ASSERT_FALSE(plan.search_start.empty());
  // When the start is a baseline, the plan is that baseline's placement: same cost.
  if (plan.search_start != "greedy") {
    bool found = false;
    for (const auto& [name, cost] : plan.baselines)
      if (name + " baseline" == plan.search_start) {
        found = true;
        EXPECT_DOUBLE_EQ(plan.cost.total(), cost.total());
      }
    EXPECT_TRUE(found) << plan.search_start;
  }
  bool said = false;
  for (const std::string& note : plan.notes)
    said = said ||
           (note.find("unimproved") != std::string::npos &&
            note.find(plan.search_start == "greedy" ? "greedy placement" : plan.search_start) !=
                std::string::npos);
  EXPECT_TRUE(said) << "no note names the unimproved start " << plan.search_start;
  const nlohmann::json doc = threadmap::plan::plan_json(plan);
  EXPECT_EQ(doc.at("improved_on_start"), false);
  EXPECT_EQ(doc.at("search_start"), plan.search_start);
  EXPECT_EQ(doc.at("search_steps"), 0);
  EXPECT_EQ(doc.at("min_steps"), 0);
}

TEST(SearchBudget, OwedStepsAreSearchedAfterTheTimeLimitAndImproveOnEveryStart) {
  const std::uint64_t owed = 100000;
  const Plan unsearched = plan_out_of_time(0);
  const Plan plan = plan_out_of_time(owed);
  ASSERT_EQ(plan.assignments.size(), big_machine().pus().size());
  EXPECT_GE(plan.search_nodes, owed);
  EXPECT_TRUE(plan.improved_on_start) << plan.search_start;
  EXPECT_EQ(plan.min_steps, owed);
  EXPECT_EQ(plan.cost.rule_breaks(), 0);
  // The unsearched plan is the cheapest start (the greedy or a baseline, whichever is
  // cheaper): the owed steps beat it, and so every baseline.
  EXPECT_LT(plan.cost.total(), unsearched.cost.total());
  for (const auto& [name, cost] : plan.baselines) {
    if (cost.rule_breaks() <= plan.cost.rule_breaks()) {
      EXPECT_LT(plan.cost.total(), cost.total()) << name;
    }
  }
  const nlohmann::json doc = threadmap::plan::plan_json(plan);
  EXPECT_EQ(doc.at("improved_on_start"), true);
  EXPECT_GE(doc.at("search_steps").get<std::uint64_t>(), owed);
}

// The clock can only stop the search at the first check after the owed steps, so a plan whose
// time ran out is the same plan however loaded the machine was.
TEST(SearchBudget, OutOfTimePlanIsTheSameWhateverTheLoad) {
  EXPECT_EQ(cpus_of(plan_out_of_time(50000)), cpus_of(plan_out_of_time(50000)));
}

}  // namespace
}  // namespace threadmap::plan::test
