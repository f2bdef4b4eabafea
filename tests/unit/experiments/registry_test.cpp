// The table of benches: the names `threadmap bench` accepts and the report runs, in order, and
// the one error for a name that is not there.
#include "src/experiments/registry.hpp"

#include <gtest/gtest.h>

namespace threadmap::experiments {
namespace {

TEST(Registry, HoldsTheFiveSeedExperimentsInReportOrder) {
  EXPECT_EQ(bench_names(),
            (std::vector<std::string>{"contention", "pingpong", "smt", "migrate", "spawn"}));
  for (const BenchEntry& e : benches()) {
    EXPECT_NE(std::string(e.description), "") << e.name;
    EXPECT_NE(e.run, nullptr) << e.name;
    EXPECT_EQ(find_bench(e.name), &e);
    // Only ping-pong chooses CPU pairs, so only it may take a pair or a latency matrix.
    EXPECT_EQ(e.takes_pair_and_latency, std::string(e.name) == "pingpong") << e.name;
  }
}

TEST(Registry, UnknownNameIsOneErrorListingTheNames) {
  EXPECT_EQ(find_bench("pong"), nullptr);
  auto topo = Topology::load_xml(std::string(THREADMAP_TEST_DATA) +
                                 "/topologies/this-vm-kvm-2vcpu-epyc.xml");
  ASSERT_TRUE(topo);
  auto r = run_bench("pong", *topo, BenchRequest{});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "unknown bench 'pong' (expected contention, pingpong, smt, migrate, spawn)");
}

TEST(Registry, BenchesRefuseATopologyFile) {
  // Dispatch reaches the bench: a topology file cannot be benchmarked, and the bench says so.
  auto topo = Topology::load_xml(std::string(THREADMAP_TEST_DATA) +
                                 "/topologies/this-vm-kvm-2vcpu-epyc.xml");
  ASSERT_TRUE(topo);
  BenchRequest request;
  request.options.quick = true;
  request.options.runs = 1;
  auto r = run_bench("contention", *topo, request);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("benchmarks need this machine"), std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace threadmap::experiments
