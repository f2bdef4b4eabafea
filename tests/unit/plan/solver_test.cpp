// The solvers: branch and bound is exact (checked against brute force), the heuristic stays
// within 1% of it on random small instances and beats every hand-made baseline on large ones.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "src/plan/baselines.hpp"
#include "src/plan/machine_model.hpp"
#include "src/plan/solvers.hpp"
#include "tests/unit/plan/plan_test_util.hpp"

namespace threadmap::plan {
namespace {

// A random workload: n threads, random traits and weighted edges.
WorkloadSpec random_spec(std::mt19937& rng, int n) {
  WorkloadSpec spec;
  spec.source = "random";
  std::uniform_int_distribution<int> trait(0, 5);
  for (int i = 0; i < n; ++i) {
    ThreadSpec t;
    t.name = "t" + std::to_string(i);
    switch (trait(rng)) {
      case 0:
        t.compute = true;
        break;
      case 1:
        t.latency_critical = true;
        break;
      case 2:
        t.background = true;
        break;
      default:
        break;
    }
    spec.threads.push_back(t);
  }
  std::uniform_real_distribution<double> weight(0.5, 20);
  std::bernoulli_distribution edge(0.35);
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      if (edge(rng))
        spec.edges.push_back(EdgeSpec{a, b, std::round(weight(rng) * 2) / 2, "random"});
  return spec;
}

struct Machine {
  std::string name;
  std::optional<Topology> topology;
  std::optional<latency::Matrix> matrix;
};

std::vector<Machine> small_machines() {
  std::vector<Machine> out;
  const std::string data = THREADMAP_TEST_DATA;
  out.push_back({"raptorlake",
                 test::load_topology(data + "/topologies/intel-i7-1370p-raptorlake-hybrid.xml"),
                 {}});
  out.push_back(
      {"epyc7763", test::load_topology(data + "/topologies/amd-2x-epyc7763-zen3.xml"), {}});
  out.push_back(
      {"9900K", {}, test::load_matrix(data + "/latency/Intel_Core_i9-9900K_CPU_3.60_GHz.csv")});
  out.push_back({"5950X", {}, test::load_matrix(data + "/latency/AMD_Ryzen_9_5950X_3.40_GHz.csv")});
  return out;
}

// Every placement of 4 threads on 12 CPUs (11,880), against branch and bound; on a measured
// matrix (no symmetry) and on a hybrid topology whose interchangeable cores the solver prunes.
void expect_exact_matches_brute_force(const Topology* topo, const latency::Matrix* matrix,
                                      const std::string& allowed) {
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    WorkloadSpec spec = random_spec(rng, 4);
    if (round % 2 == 1) {  // three twins talking all-to-all plus one partner of all three
      spec.edges.clear();
      for (int t = 1; t < 3; ++t) {
        spec.threads[t].compute = spec.threads[0].compute;
        spec.threads[t].latency_critical = spec.threads[0].latency_critical;
        spec.threads[t].background = spec.threads[0].background;
      }
      for (int a = 0; a < 3; ++a) {
        for (int b = a + 1; b < 3; ++b) spec.edges.push_back(EdgeSpec{a, b, 2.0 + round, "twins"});
        spec.edges.push_back(EdgeSpec{a, 3, 1.5, "partner"});
      }
    }
    spec.allowed = allowed;
    MachineInputs in;
    in.topology = topo;
    in.matrix = matrix;
    in.allowed = spec.allowed;
    auto m = build_machine(in);
    ASSERT_TRUE(m.ok()) << m.error().message;
    const int cpus = static_cast<int>(m->size());
    auto p = build_problem(spec, *m, topo);
    ASSERT_TRUE(p.ok()) << p.error().message;
    double best = std::numeric_limits<double>::infinity();
    std::vector<int> cpu(4);
    std::function<void(int)> enumerate = [&](int t) {
      if (t == 4) {
        best = std::min(best, evaluate(*p, cpu).objective());
        return;
      }
      for (int c = 0; c < cpus; ++c) {
        bool used = false;
        for (int k = 0; k < t; ++k) used = used || cpu[k] == c;
        if (used) continue;
        cpu[t] = c;
        enumerate(t + 1);
      }
    };
    enumerate(0);
    Solution exact = solve_exact(*p, Solution{}, SolveOptions{});
    ASSERT_TRUE(exact.proven_optimal);
    EXPECT_NEAR(exact.cost, best, 1e-9 * (1 + best)) << "round " << round;
  }
}

TEST(Solvers, BranchAndBoundMatchesBruteForce) {
  const std::string data = THREADMAP_TEST_DATA;
  latency::Matrix matrix =
      test::load_matrix(data + "/latency/Intel_Core_i9-9900K_CPU_3.60_GHz.csv");
  expect_exact_matches_brute_force(nullptr, &matrix, "0-11");
  Topology hybrid = test::load_topology(data + "/topologies/intel-i7-1370p-raptorlake-hybrid.xml");
  expect_exact_matches_brute_force(&hybrid, nullptr, "4-15");  // 4 P-cores (SMT) + 4 E-cores
  Topology epyc = test::load_topology(data + "/topologies/amd-2x-epyc7763-zen3.xml");
  expect_exact_matches_brute_force(&epyc, nullptr, "0-5,8-13");  // two L3s of one package
}

TEST(Solvers, HeuristicWithinOnePercentOfExactOnRandomSmallInstances) {
  std::mt19937 rng(2024);
  int compared = 0;
  for (Machine& machine : small_machines()) {
    SCOPED_TRACE(machine.name);
    MachineInputs in;
    in.topology = machine.topology ? &*machine.topology : nullptr;
    in.matrix = machine.matrix ? &*machine.matrix : nullptr;
    auto m = build_machine(in);
    ASSERT_TRUE(m.ok()) << m.error().message;
    for (int round = 0; round < 6; ++round) {
      WorkloadSpec spec = random_spec(rng, 5 + round % 4);
      auto p = build_problem(spec, *m, in.topology);
      ASSERT_TRUE(p.ok()) << p.error().message;
      SolveOptions options;
      options.exact_time_limit_s = 30;
      auto greedy = solve_greedy(*p);
      ASSERT_TRUE(greedy.ok());
      Solution heuristic = iterate_local(*p, *greedy, options);
      Solution exact = solve_exact(*p, Solution{}, options);
      ASSERT_TRUE(exact.proven_optimal) << "round " << round;
      EXPECT_LE(exact.cost, heuristic.cost + 1e-9 * (1 + heuristic.cost));
      EXPECT_LE(heuristic.cost, exact.cost * 1.01 + 1e-9)
          << "round " << round << ": heuristic " << heuristic.cost << " exact " << exact.cost;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 24);
}

// A large workload like a server: pipelines of stages, a pool of compute workers, background
// housekeeping and a latency-critical dispatcher feeding every pipeline.
std::string large_spec(int pipelines, int stages, int workers, int background) {
  std::string json = R"({"threads": [{"name": "dispatch", "traits": ["latency-critical"]})";
  std::string edges;
  for (int p = 0; p < pipelines; ++p) {
    const std::string base = "p" + std::to_string(p) + "s";
    json += R"(, {"name": ")" + base + "[0-" + std::to_string(stages - 1) + "]\"}";
    edges += std::string(edges.empty() ? "" : ", ") + R"({"between": ["dispatch", ")" + base +
             "0\"], \"weight\": 1}";
    for (int s = 0; s + 1 < stages; ++s)
      edges += R"(, {"between": [")" + base + std::to_string(s) + "\", \"" + base +
               std::to_string(s + 1) + "\"], \"weight\": 10}";
  }
  json +=
      R"(, {"name": "worker[0-)" + std::to_string(workers - 1) + R"(]", "traits": ["compute"]})";
  json += R"(, {"name": "house[0-)" + std::to_string(background - 1) +
          R"(]", "traits": ["background"]}])";
  return json + R"(, "edges": [)" + edges + "]}";
}

TEST(Solvers, HeuristicBeatsEveryBaselineOnLargeInstances) {
  const std::string data = THREADMAP_TEST_DATA;
  std::vector<Machine> machines;
  machines.push_back(
      {"epyc9654", test::load_topology(data + "/topologies/amd-2x-epyc9654-zen4.xml"), {}});
  machines.push_back(
      {"uv2000", test::load_topology(data + "/topologies/sgi-uv2000-24x-xeon-e5-4640.xml"), {}});
  machines.push_back(
      {"spr",
       test::load_topology(data + "/topologies/intel-2x-xeonmax9460-sapphirerapids.xml"),
       {}});
  machines.push_back(
      {"9754",
       {},
       test::load_matrix(data + "/latency/Dual_AMD_EPYC_9754_128-Core_Processor_by-fwyzard.csv")});
  machines.push_back(
      {"7R13", {}, test::load_matrix(data + "/latency/AMD_EPYC_7R13_48-Core_Processor.csv")});
  const std::string json = large_spec(20, 6, 24, 8);  // 153 threads
  for (Machine& machine : machines) {
    SCOPED_TRACE(machine.name);
    Plan plan = test::plan_json(json, machine.topology ? &*machine.topology : nullptr,
                                machine.matrix ? &*machine.matrix : nullptr);
    ASSERT_EQ(plan.assignments.size(), 153u);
    EXPECT_EQ(plan.cost.rule_breaks(), 0);
    for (const auto& [name, cost] : plan.baselines) {
      EXPECT_LT(plan.cost.objective(), cost.objective()) << name;
      EXPECT_LT(plan.cost.communication, cost.communication) << name;
    }
  }
}

TEST(Solvers, SameSeedSamePlan) {
  Topology topo = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/amd-2x-epyc9654-zen4.xml");
  const std::string json = large_spec(8, 5, 8, 4);
  Plan first = test::plan_json(json, &topo, nullptr);
  Plan second = test::plan_json(json, &topo, nullptr);
  ASSERT_EQ(first.assignments.size(), second.assignments.size());
  for (std::size_t i = 0; i < first.assignments.size(); ++i)
    EXPECT_EQ(first.assignments[i].cpus, second.assignments[i].cpus) << first.assignments[i].thread;
}

TEST(Solvers, BaselinesAreWhatTheirNamesSay) {
  Topology topo = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/amd-2x-epyc9654-zen4.xml");
  MachineInputs in;
  in.topology = &topo;
  auto m = build_machine(in);
  ASSERT_TRUE(m.ok());
  auto cpu = [&](int index) { return m->cpus[index].cpu; };
  std::vector<int> seq = sequential_placement(*m, 3);
  EXPECT_EQ(cpu(seq[0]), 0);
  EXPECT_EQ(cpu(seq[2]), 2);
  std::vector<int> compact = compact_placement(*m, 2);  // both SMT threads of core 0
  EXPECT_TRUE(topo.smt_siblings(cpu(compact[0])).contains(cpu(compact[1])));
  std::vector<int> scatter = scatter_placement(*m, 2);  // one per package
  EXPECT_NE(topo.pu(cpu(scatter[0]))->package, topo.pu(cpu(scatter[1]))->package);
  std::vector<int> spread = spread_placement(*m, 4);  // 2 per package, different L3s
  EXPECT_NE(topo.pu(cpu(spread[0]))->package, topo.pu(cpu(spread[2]))->package);
  EXPECT_NE(topo.pu(cpu(spread[0]))->l3, topo.pu(cpu(spread[1]))->l3);
}

}  // namespace
}  // namespace threadmap::plan
