// A program no preload can load into gets what a whole process can get: the rules' CPUs as its
// affinity (taskset) and --mem as its policy (numactl), and one line saying so and what is lost.
#include "src/apply/static_program.hpp"

#include <gtest/gtest.h>

namespace {

using namespace threadmap;
using namespace threadmap::apply;

PreloadReach static_program() {
  PreloadReach r;
  r.reaches = false;
  r.program = "./server";
  r.why =
      "'./server' is statically linked (no PT_INTERP: plain Go, static C, static-pie), so no "
      "preload library can load into it";
  return r;
}

TEST(WholeProcessPlacement, ADynamicProgramKeepsThePreloads) {
  WholeProcessRequest asked;
  asked.cpus = *CpuSet::parse_list("0-3");
  auto placed = whole_process_placement(PreloadReach{}, asked);
  EXPECT_TRUE(placed.cpus.empty());
  EXPECT_EQ(placed.memory_mode, -1);
  EXPECT_TRUE(placed.warning.empty());
}

TEST(WholeProcessPlacement, AStaticProgramGetsTheCpusAndMemoryPolicyAsAWhole) {
  WholeProcessRequest asked;
  asked.cpus = *CpuSet::parse_list("0-3,8");
  asked.memory = MemoryPolicy{MemoryMode::bind, {0, 2}};
  auto placed = whole_process_placement(static_program(), asked);
  EXPECT_EQ(placed.cpus, (std::vector<int>{0, 1, 2, 3, 8}));
  EXPECT_EQ(placed.memory_mode, 2);  // MPOL_BIND
  EXPECT_EQ(placed.memory_nodes, (std::vector<int>{0, 2}));
  EXPECT_EQ(placed.warning.rfind("warning: './server' is statically linked", 0), 0u)
      << placed.warning;
  EXPECT_NE(placed.warning.find("(as taskset -c 0-3,8)"), std::string::npos) << placed.warning;
  EXPECT_NE(placed.warning.find("(as numactl --membind=0,2)"), std::string::npos) << placed.warning;
  EXPECT_EQ(placed.warning.find('\n'), std::string::npos);
}

TEST(WholeProcessPlacement, SaysWhatAWholeProcessCannotHave) {
  WholeProcessRequest asked;
  asked.thread_cache = true;
  asked.per_thread_memory = true;
  auto placed = whole_process_placement(static_program(), asked);
  EXPECT_TRUE(placed.cpus.empty());
  EXPECT_NE(placed.warning.find("it runs as without threadmap"), std::string::npos);
  EXPECT_NE(placed.warning.find("the thread cache is not used"), std::string::npos);
  EXPECT_NE(placed.warning.find("per-thread memory nodes are not applied"), std::string::npos);
}

}  // namespace
