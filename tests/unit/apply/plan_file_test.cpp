// Plan JSON reading: what `run` relies on is checked strictly; unknown fields are tolerated.
#include "src/apply/plan_file.hpp"

#include <gtest/gtest.h>

namespace threadmap::apply {
namespace {

TEST(PlanFile, ReadsAssignmentsInOrder) {
  auto plan = parse_plan(R"({"schema":"threadmap.plan/1","assignments":[
      {"thread":"main","cpus":[0]},{"thread":"producer","cpus":[2,3]},{"thread":"consumer","cpus":[1]}],
      "cost":12.5,"model":"latency","baselines":{"os":20}})",
                         "p.json");
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->assignments.size(), 3u);
  EXPECT_EQ(plan->assignments[1].thread, "producer");
  EXPECT_EQ(plan->assignments[1].cpus.to_list(), "2-3");
  EXPECT_EQ(plan->model, "latency");
}

TEST(PlanFile, RejectsWhatRunCannotUse) {
  const char* bad[] = {
      "not json",
      "[]",
      R"({"assignments":[{"thread":"a","cpus":[0]}]})",
      R"({"schema":"threadmap.plan/2","assignments":[{"thread":"a","cpus":[0]}]})",
      R"({"schema":"threadmap.plan/1"})",
      R"({"schema":"threadmap.plan/1","assignments":[]})",
      R"({"schema":"threadmap.plan/1","assignments":[{"cpus":[0]}]})",
      R"({"schema":"threadmap.plan/1","assignments":[{"thread":"a","cpus":[]}]})",
      R"({"schema":"threadmap.plan/1","assignments":[{"thread":"a","cpus":[-1]}]})",
      R"({"schema":"threadmap.plan/1","assignments":[{"thread":"a","cpus":["0"]}]})",
      R"({"schema":"threadmap.plan/1","assignments":[{"thread":"a","cpus":[0]},{"thread":"a","cpus":[1]}]})",
  };
  for (const char* text : bad) {
    auto plan = parse_plan(text, "bad.json");
    EXPECT_FALSE(plan.ok()) << text;
    if (!plan.ok()) {
      EXPECT_NE(plan.error().message.find("bad.json"), std::string::npos);
    }
  }
}

TEST(PlanFile, MissingFileNamesThePath) {
  auto plan = read_plan_file("/nonexistent/plan.json");
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find("/nonexistent/plan.json"), std::string::npos);
}

}  // namespace
}  // namespace threadmap::apply
