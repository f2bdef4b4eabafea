// Plan JSON reading: what `run` relies on is checked strictly; unknown fields are tolerated.
// (The writer against this reader: plan_json_test.cpp.)
#include "src/plan/plan_file.hpp"

#include <gtest/gtest.h>

namespace threadmap::plan {
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

TEST(PlanFile, MemoryNodeMustBeANodeNumber) {
  for (const char* node : {"-1", "1.5", "\"0\"", "1024"}) {
    std::string text = std::string(R"({"schema": "threadmap.plan/1", "assignments": [)") +
                       R"({"thread": "a", "cpus": [0], "memory_node": )" + node + "}]}";
    auto plan = parse_plan(text, "test");
    ASSERT_FALSE(plan.ok()) << node;
    EXPECT_NE(plan.error().message.find("memory_node"), std::string::npos);
  }
}

TEST(PlanFile, CpusAndNodesAreThoseTmPinCanCarry) {
  // `run --plan` hands the plan to the pin library as tm-pin/1, whose parser takes CPUs up to
  // 65535 and NUMA nodes up to 1023 (src/preload/common/tm_pin_limits.h): past that, the plan is
  // refused when it is read, not when the program starts.
  auto one = [](const std::string& cpu, const std::string& node) {
    return parse_plan(R"({"schema":"threadmap.plan/1","assignments":[{"thread":"a","cpus":[)" +
                          cpu + R"(],"memory_node":)" + node + "}]}",
                      "limits.json");
  };
  EXPECT_TRUE(one("65535", "1023").ok());
  auto cpu = one("65536", "0");
  ASSERT_FALSE(cpu.ok());
  EXPECT_NE(cpu.error().message.find("65536 is not a CPU number"), std::string::npos)
      << cpu.error().message;
  EXPECT_FALSE(one("0", "1024").ok());
}

}  // namespace
}  // namespace threadmap::plan
