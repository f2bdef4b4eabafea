// `plan --ranks N` checked and as one library call on a recorded machine: the shares cover the
// CPUs once, each refusal says what it is about (a value, or the topology) and whose fault it
// is, and an export names the host.
#include "src/cluster/rank_plan.hpp"

#include <gtest/gtest.h>

namespace threadmap::cluster {
namespace {

RankPlanRequest on_epyc(int ranks) {
  RankPlanRequest request;
  request.ranks = ranks;
  request.topology_file = std::string(THREADMAP_TEST_DATA) + "/topologies/amd-2x-epyc7763-zen3.xml";
  return request;
}

TEST(RankPlan, TheSharesCoverTheAllowedCpusOnce) {
  auto plan = plan_ranks(on_epyc(2));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->shares.size(), 2u);
  EXPECT_TRUE((plan->shares[0].cpus & plan->shares[1].cpus).empty());
  EXPECT_FALSE(plan->shares[0].cpus.empty());
  EXPECT_TRUE(plan->exported.empty());  // no format asked for
}

TEST(RankPlan, AnExportNamesTheHostGiven) {
  RankPlanRequest request = on_epyc(2);
  request.format = RankExport::rankfile;
  request.host = "node-a7";
  auto plan = plan_ranks(request);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_NE(plan->exported.find("node-a7"), std::string::npos) << plan->exported;
}

TEST(RankPlan, EachRefusalSaysWhatItIsAbout) {
  RankPlanRequest bad_allowed = on_epyc(2);
  bad_allowed.allowed = "no-such-cpus";
  auto a = plan_ranks(bad_allowed);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().input, "allowed");
  EXPECT_EQ(a.error().fault, Fault::input);

  auto r = plan_ranks(on_epyc(0));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().input, "ranks");
  EXPECT_EQ(r.error().fault, Fault::input);

  RankPlanRequest missing = on_epyc(2);
  missing.topology_file = "/nonexistent/topology.xml";
  auto t = plan_ranks(missing);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().input, "topology_file");
  EXPECT_EQ(t.error().fault, Fault::work);  // the file could not be read
}

// The plan command line checked into one of its two forms; the rules that join them.
plan::PlanOptions ranks_given(int ranks) {
  plan::PlanOptions options;
  options.ranks = ranks;
  return options;
}

TEST(PlanCommandRequest, ARankCountIsTheRankFormWithItsDefaults) {
  plan::PlanOptions options = ranks_given(4);
  options.export_format = "rankfile";
  options.host = "node-a7";
  auto command = plan_command_request(options);
  ASSERT_TRUE(command.ok()) << command.error().message;
  ASSERT_TRUE(command->rank_plan.has_value());
  EXPECT_FALSE(command->thread_plan.has_value());
  EXPECT_EQ(command->rank_plan->ranks, 4);
  EXPECT_EQ(command->rank_plan->format, RankExport::rankfile);
  EXPECT_EQ(command->rank_plan->host, "node-a7");
}

TEST(PlanCommandRequest, EachRuleBetweenOptionsNamesTheMemberItRefuses) {
  struct Case {
    plan::PlanOptions options;
    const char* member;
  };
  plan::PlanOptions with_threads = ranks_given(2);
  with_threads.threads = 4;
  plan::PlanOptions with_latency = ranks_given(2);
  with_latency.latency_file = "m.csv";
  plan::PlanOptions with_output = ranks_given(2);
  with_output.output = "p.json";
  plan::PlanOptions thread_format = ranks_given(2);
  thread_format.export_format = "taskset";
  plan::PlanOptions empty_allowed = ranks_given(2);
  empty_allowed.allowed = "";
  plan::PlanOptions rankfile_without_ranks;
  rankfile_without_ranks.threads = 2;
  rankfile_without_ranks.export_format = "rankfile";
  plan::PlanOptions host_without_ranks;
  host_without_ranks.threads = 2;
  host_without_ranks.host = "node";
  plan::PlanOptions policy_without_threads;
  policy_without_threads.pairs = 2;
  policy_without_threads.policy = "compact";
  plan::PlanOptions two_forms;
  two_forms.pairs = 2;
  two_forms.threads = 2;
  for (const Case& c :
       {Case{with_threads, "ranks"}, Case{with_latency, "latency_file"},
        Case{with_output, "output"}, Case{thread_format, "export_format"},
        Case{empty_allowed, "allowed"}, Case{rankfile_without_ranks, "export_format"},
        Case{host_without_ranks, "host"}, Case{policy_without_threads, "policy"},
        Case{two_forms, "threads"}}) {
    auto command = plan_command_request(c.options);
    ASSERT_FALSE(command.ok()) << c.member;
    EXPECT_EQ(command.error().input, c.member) << command.error().message;
    EXPECT_EQ(command.error().fault, Fault::input) << c.member;
    EXPECT_EQ(command.error().message.find("--"), std::string::npos) << command.error().message;
  }
  auto none = plan_command_request(plan::PlanOptions{});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().fault, Fault::input);
}

}  // namespace
}  // namespace threadmap::cluster
