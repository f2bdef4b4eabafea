// The placement rules users rely on, checked on every shared real-machine topology and latency
// matrix (never special-casing a file): contending pairs share a core, a ping-pong pair gets the
// lowest-latency pair, compute threads keep to their own cores, background threads go to E-cores.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "src/latency/domains.hpp"
#include "tests/unit/plan/plan_test_util.hpp"

namespace threadmap::plan {
namespace {

constexpr const char* kContendingPairs = R"({
  "threads": [{"name": "a0"}, {"name": "a1", "share-core-with": "a0"},
              {"name": "b0"}, {"name": "b1", "share-core-with": "b0"}],
  "edges": [{"between": ["a0", "a1"], "weight": 100}, {"between": ["b0", "b1"], "weight": 100}]})";

TEST(PlacementRules, ContendingPairsEachShareOneCoreOnEveryTopology) {
  for (const std::string& file : test::topology_files()) {
    SCOPED_TRACE(file);
    Topology topo = test::load_topology(file);
    Plan plan = test::plan_json(kContendingPairs, &topo, nullptr);
    for (const char* pair : {"a", "b"}) {
      const int x = test::cpu_of(plan, std::string(pair) + "0");
      const int y = test::cpu_of(plan, std::string(pair) + "1");
      const CpuSet siblings = topo.smt_siblings(x);
      EXPECT_TRUE(siblings.contains(y)) << pair << ": " << x << " and " << y;
      // Two SMT threads available: they must not stack on one CPU.
      if (siblings.count() > 1) {
        EXPECT_NE(x, y);
      }
    }
    EXPECT_FALSE(topo.smt_siblings(test::cpu_of(plan, "a0")).contains(test::cpu_of(plan, "b0")));
  }
}

TEST(PlacementRules, ContendingPairsOnMatricesUseInferredSmtSiblings) {
  for (const std::string& file : test::matrix_files()) {
    SCOPED_TRACE(file);
    latency::Matrix matrix = test::load_matrix(file);
    latency::DomainAnalysis domains = latency::analyse_domains(matrix);
    Plan plan = test::plan_json(kContendingPairs, nullptr, &matrix);
    for (const char* pair : {"a", "b"}) {
      const int x = test::cpu_of(plan, std::string(pair) + "0");
      const int y = test::cpu_of(plan, std::string(pair) + "1");
      bool together = x == y;
      for (const CpuSet& core : domains.smt_siblings)
        together = together || (core.contains(x) && core.contains(y));
      EXPECT_TRUE(together) << pair << ": " << x << " and " << y;
    }
  }
}

TEST(PlacementRules, PingPongPairGetsTheLowestLatencyPairOfTheMatrix) {
  for (const std::string& file : test::matrix_files()) {
    SCOPED_TRACE(file);
    latency::Matrix matrix = test::load_matrix(file);
    double lowest = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < matrix.size(); ++i)
      for (std::size_t j = 0; j < matrix.size(); ++j)
        if (i != j && std::isfinite(matrix.at(i, j))) lowest = std::min(lowest, matrix.at(i, j));
    Plan plan = test::plan_json(R"({"threads": [{"name": "ping", "traits": ["latency-critical"]},
        {"name": "pong", "traits": ["latency-critical"]}], "edges": [{"between": ["ping", "pong"]}]})",
                                nullptr, &matrix);
    const int a = test::cpu_of(plan, "ping"), b = test::cpu_of(plan, "pong");
    EXPECT_NE(a, b);
    EXPECT_DOUBLE_EQ(matrix.between(a, b), lowest) << a << "<->" << b;
    EXPECT_TRUE(plan.proven_optimal);
    // And never worse than the numbering's first pair, what a person would pick by hand.
    EXPECT_LE(plan.cost.total(), plan.baselines.front().second.total());
  }
}

TEST(PlacementRules, ComputeThreadsNeverShareACoreWhileCoresAreFree) {
  for (const std::string& file : test::topology_files()) {
    SCOPED_TRACE(file);
    Topology topo = test::load_topology(file);
    const int cores = topo.counts().cores;
    for (int n : {2, std::max(2, cores / 2), cores}) {
      const std::string json = R"({"threads": [{"name": "w[0-)" + std::to_string(n - 1) +
                               R"(]", "traits": ["compute"]}]})";
      Plan plan = test::plan_json(json, &topo, nullptr);
      ASSERT_EQ(static_cast<int>(plan.assignments.size()), n);
      EXPECT_EQ(plan.cost.compute_smt_pairs, 0) << n << " compute threads";
      for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
          ASSERT_FALSE(topo.smt_siblings(plan.assignments[i].cpus.first())
                           .contains(plan.assignments[j].cpus.first()))
              << n << " threads: " << plan.assignments[i].cpus.first() << " and "
              << plan.assignments[j].cpus.first();
    }
  }
}

TEST(PlacementRules, BackgroundThreadsGoToEfficiencyCoresOnHybrids) {
  int hybrids = 0;
  for (const std::string& file : test::topology_files()) {
    Topology topo = test::load_topology(file);
    const auto& kinds = topo.cpu_kinds();
    if (kinds.size() < 2) continue;
    SCOPED_TRACE(file);
    ++hybrids;
    int best = -1;
    for (const CpuKind& k : kinds) best = std::max(best, k.efficiency);
    CpuSet efficient;
    for (const CpuKind& k : kinds)
      if (k.efficiency < best) efficient |= k.cpus;
    Plan plan = test::plan_json(R"({"threads": [
        {"name": "rt[0-1]", "traits": ["latency-critical"]}, {"name": "crunch", "traits": ["compute"]},
        {"name": "log[0-1]", "traits": ["background"]}],
        "edges": [{"between": ["rt0", "rt1"], "weight": 5}]})",
                                &topo, nullptr);
    for (const char* bg : {"log0", "log1"})
      EXPECT_TRUE(efficient.contains(test::cpu_of(plan, bg))) << bg;
    for (const char* fg : {"rt0", "rt1", "crunch"})
      EXPECT_FALSE(efficient.contains(test::cpu_of(plan, fg))) << fg;
  }
  EXPECT_GE(hybrids, 2) << "the shared data has hybrid machines with CPU kinds";
}

TEST(PlacementRules, BackgroundKeepsAwayFromLatencyCritical) {
  Topology topo = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/amd-2x-epyc7763-zen3.xml");
  Plan plan = test::plan_json(R"({"threads": [{"name": "rt", "traits": ["latency-critical"]},
      {"name": "bg", "traits": ["background"]}]})",
                              &topo, nullptr);
  EXPECT_NE(topo.shared_level(test::cpu_of(plan, "rt"), test::cpu_of(plan, "bg")), Level::l3);
  EXPECT_EQ(plan.cost.background, 0);
}

TEST(PlacementRules, ConstraintsAndMemoryNodeAreHonoured) {
  Topology topo = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/amd-4x-opteron6200-bulldozer-8numa.xml");
  const int node = topo.pu(20)->numa;  // a node inside the allowed CPUs, not the first one
  ASSERT_GT(node, 0);
  Plan plan =
      test::plan_json(R"({"threads": [{"name": "a", "memory-node": )" + std::to_string(node) +
                          R"(}, {"name": "b", "cpus": "8-9"},
      {"name": "c[0-3]"}], "constraints": {"allowed": "0-31", "reserved": "0-1"}})",
                      &topo, nullptr);
  const int a = test::cpu_of(plan, "a");
  EXPECT_EQ(topo.pu(a)->numa, node) << "cpu " << a;
  const int b = test::cpu_of(plan, "b");
  EXPECT_TRUE(b == 8 || b == 9) << b;
  for (const auto& t : plan.assignments) {
    EXPECT_GE(t.cpus.first(), 2) << t.thread;
    EXPECT_LE(t.cpus.first(), 31) << t.thread;
  }
}

TEST(PlacementRules, InfeasibleSpecsGetOneClearError) {
  Topology topo = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/this-vm-kvm-2vcpu-epyc.xml");
  struct Case {
    const char* json;
    const char* expect;
  };
  const Case cases[] = {
      {R"({"threads": [{"name": "x[0-2]", "traits": ["exclusive"]}]})", "whole cores but only 2"},
      {R"({"threads": [{"name": "t[0-2]"}]})", "3 threads need 3 CPUs but only 2 are available"},
      {R"({"threads": [{"name": "t", "cpus": "0"}], "constraints": {"reserved": "0"}})",
       "CPU 0 is reserved"},
      {R"({"threads": [{"name": "t"}], "constraints": {"allowed": "0-7"}})", "does not exist"},
      {R"({"threads": [{"name": "t"}], "constraints": {"allowed": "0-1", "reserved": "0-1"}})",
       "no CPU left"},
      {R"({"threads": [{"name": "t"}], "constraints": {"allowed": "core:9"}})",
       "constraint allowed 'core:9'"},
      {R"({"threads": [{"name": "a"}], "edges": [{"between": ["a", "nobody"]}]})",
       "unknown thread 'nobody'"},
      {R"({"threads": [{"name": "a", "share-core-with": "b"}, {"name": "b", "share-core-with": "a"}]})",
       "cycle"},
  };
  for (const Case& c : cases) {
    std::string message = test::plan_error(c.json, &topo);
    EXPECT_NE(message.find(c.expect), std::string::npos) << c.json << " -> '" << message << "'";
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace threadmap::plan
