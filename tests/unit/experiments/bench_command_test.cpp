// `threadmap bench` checked (bench_request): the bench is looked up in the registry, a pair or a
// latency matrix is refused for a bench that takes neither, and the runs default once.
#include "src/experiments/bench_command.hpp"

#include <gtest/gtest.h>

namespace threadmap::experiments {
namespace {

TEST(BenchRequest, EachRefusalNamesTheMemberAndIsTheCommandLinesFault) {
  struct Case {
    BenchCommandOptions options;
    const char* member;
  };
  BenchCommandOptions unknown;
  unknown.name = "nosuch";
  BenchCommandOptions pair_elsewhere;
  pair_elsewhere.name = "contention";
  pair_elsewhere.pair = "0,1";
  BenchCommandOptions matrix_elsewhere;
  matrix_elsewhere.name = "contention";
  matrix_elsewhere.latency_file = "m.csv";
  BenchCommandOptions one_cpu;
  one_cpu.name = "pingpong";
  one_cpu.pair = "0";
  for (const Case& c : {Case{unknown, "name"}, Case{pair_elsewhere, "pair"},
                        Case{matrix_elsewhere, "latency_file"}, Case{one_cpu, "pair"}}) {
    auto command = bench_request(c.options);
    ASSERT_FALSE(command.ok()) << c.member;
    EXPECT_EQ(command.error().input, c.member) << command.error().message;
    EXPECT_EQ(command.error().fault, Fault::input);
    EXPECT_EQ(command.error().message.find("--"), std::string::npos) << command.error().message;
  }
}

TEST(BenchRequest, ThePairIsReadAndTheRunsDefaultOnce) {
  BenchCommandOptions options;
  options.name = "pingpong";
  options.pair = "3,17";
  auto command = bench_request(options);
  ASSERT_TRUE(command.ok()) << command.error().message;
  ASSERT_NE(command->entry, nullptr);
  EXPECT_STREQ(command->entry->name, "pingpong");
  ASSERT_TRUE(command->request.pair.has_value());
  EXPECT_EQ(command->request.pair->first, 3);
  EXPECT_EQ(command->request.pair->second, 17);
  EXPECT_EQ(command->request.options.runs, 5);
  options.quick = true;
  EXPECT_EQ(bench_request(options)->request.options.runs, 3);
  options.runs = 8;
  EXPECT_EQ(bench_request(options)->request.options.runs, 8);
}

}  // namespace
}  // namespace threadmap::experiments
