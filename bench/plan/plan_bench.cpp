// Planner speed and quality, side by side in one run:
//   BM_Plan/<machine>/<threads>: the whole `threadmap plan` pipeline (machine model, greedy,
//     iterated local search, baselines) for a server-like workload; counters report the plan's
//     cost, the best baseline's cost and their ratio, and rule breaks of each.
//   BM_Stage/<stage>: greedy alone vs greedy + iterated local search vs branch and bound on the
//     same 12-thread workload, so the price of each stage is measured in the same run.
// The 512-CPU topology is a synthetic hwloc export (2 packages x 2 NUMA x 8 L3 x 8 cores x SMT-2,
// `lstopo --input "pack:2 numa:2 l3:8 core:8 pu:2" --of xml`); the 512-CPU matrix is the shared
// dual EPYC 9754 measurement.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <limits>
#include <string>

#include "src/latency/matrix.hpp"
#include "src/plan/machine_model.hpp"
#include "src/plan/planner.hpp"
#include "src/plan/solvers.hpp"

namespace threadmap::plan {
namespace {

// `pipelines` chains of 8 stages (weight 10 between neighbours), fed by a latency-critical
// dispatcher, plus compute workers and background housekeeping.
WorkloadSpec server_workload(int threads) {
  WorkloadSpec spec;
  spec.source = "server workload, " + std::to_string(threads) + " threads";
  spec.oversubscribe = true;
  ThreadSpec dispatch;
  dispatch.name = "dispatch";
  dispatch.latency_critical = true;
  spec.threads.push_back(dispatch);
  const int workers = threads / 8, background = threads / 32;
  const int pipelines = (threads - 1 - workers - background) / 8;
  for (int p = 0; p < pipelines; ++p)
    for (int s = 0; s < 8; ++s) {
      ThreadSpec t;
      t.name = "p" + std::to_string(p) + "s" + std::to_string(s);
      const int index = static_cast<int>(spec.threads.size());
      spec.threads.push_back(t);
      if (s == 0)
        spec.edges.push_back(EdgeSpec{0, index, 1.0, "dispatch"});
      else
        spec.edges.push_back(EdgeSpec{index - 1, index, 10.0, "pipeline"});
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

const Topology& synthetic_topology() {
  static Topology topo =
      *Topology::load_xml(std::string(THREADMAP_BENCH_DATA) + "/synthetic-2pkg-512cpu.xml");
  return topo;
}

const latency::Matrix& measured_matrix() {
  static latency::Matrix m =
      *latency::load_matrix(std::string(THREADMAP_TEST_DATA) +
                            "/latency/Dual_AMD_EPYC_9754_128-Core_Processor_by-fwyzard.csv");
  return m;
}

// "Best" baseline = fewest rule breaks, then lowest cost (the order the solver optimises);
// the cheapest baseline ignoring rule breaks is reported too, so neither view hides the other.
void report(benchmark::State& state, const Plan& plan) {
  double best = std::numeric_limits<double>::infinity(), cheapest = best;
  int best_breaks = std::numeric_limits<int>::max();
  for (const auto& [name, cost] : plan.baselines) {
    cheapest = std::min(cheapest, cost.total());
    if (cost.rule_breaks() < best_breaks ||
        (cost.rule_breaks() == best_breaks && cost.total() < best)) {
      best = cost.total();
      best_breaks = cost.rule_breaks();
    }
  }
  state.counters["plan_cost"] = plan.cost.total();
  state.counters["plan_rule_breaks"] = plan.cost.rule_breaks();
  state.counters["best_baseline_cost"] = best;
  state.counters["best_baseline_rule_breaks"] = best_breaks;
  state.counters["baseline/plan"] = plan.cost.total() > 0 ? best / plan.cost.total() : 0;
  state.counters["cheapest_baseline/plan"] =
      plan.cost.total() > 0 ? cheapest / plan.cost.total() : 0;
}

void BM_Plan(benchmark::State& state, bool measured) {
  const WorkloadSpec spec = server_workload(static_cast<int>(state.range(0)));
  PlanInputs in;
  if (measured)
    in.matrix = &measured_matrix();
  else
    in.topology = &synthetic_topology();
  Plan last;
  for (auto _ : state) {
    auto plan = make_plan(spec, in);
    if (!plan) {
      state.SkipWithError(plan.error().message.c_str());
      return;
    }
    last = std::move(*plan);
  }
  report(state, last);
}
BENCHMARK_CAPTURE(BM_Plan, topology512, false)
    ->Arg(256)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_Plan, matrix512, true)
    ->Arg(256)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

enum Stage { greedy, iterated, exact };

void BM_Stage(benchmark::State& state, Stage stage) {
  WorkloadSpec spec = server_workload(12);
  spec.oversubscribe = false;
  MachineInputs in;
  in.topology = &synthetic_topology();
  auto machine = build_machine(in);
  auto problem = build_problem(spec, *machine, in.topology);
  if (!problem) {
    state.SkipWithError(problem.error().message.c_str());
    return;
  }
  SolveOptions options;
  double cost = 0;
  for (auto _ : state) {
    auto start = solve_greedy(*problem);
    Solution s = *start;
    if (stage != greedy) s = iterate_local(*problem, s, options);
    if (stage == exact) s = solve_exact(*problem, Solution{}, options);
    cost = s.cost;
  }
  state.counters["cost"] = cost;
}
BENCHMARK_CAPTURE(BM_Stage, greedy, greedy)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Stage, greedy_plus_iterated_local_search, iterated)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Stage, branch_and_bound_from_scratch, exact)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace threadmap::plan

BENCHMARK_MAIN();
