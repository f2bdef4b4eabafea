// Recommendations through the planner (see recommend.hpp).
#include "src/plan/recommend.hpp"

#include <algorithm>

#include "src/plan/machine_model.hpp"
#include "src/plan/planner.hpp"

namespace threadmap::plan {
namespace {

// Solves a quick-form spec on the inputs' machine and records the model the planner used.
Result<Plan> solve_quick(const Result<WorkloadSpec>& spec, RecommendInputs& inputs) {
  if (!spec) return spec.error();
  PlanInputs plan_inputs;
  plan_inputs.topology = inputs.topology;
  plan_inputs.matrix = inputs.matrix;
  auto plan = make_plan(*spec, plan_inputs);
  if (plan) inputs.model = plan->model;
  return plan;
}

}  // namespace

Result<std::vector<PairRecommendation>> recommend_pairs(RecommendInputs& inputs, int pairs) {
  auto plan = solve_quick(pairs_spec(pairs), inputs);
  if (!plan) return plan.error();
  MachineInputs machine_inputs;
  machine_inputs.topology = inputs.topology;
  machine_inputs.matrix = inputs.matrix;
  auto machine = build_machine(machine_inputs);
  if (!machine) return machine.error();
  std::vector<PairRecommendation> out;
  for (int k = 0; k < pairs; ++k) {
    PairRecommendation r;
    r.cpu_a = plan->assignments[2 * k].cpus.first();
    r.cpu_b = plan->assignments[2 * k + 1].cpus.first();
    if (r.cpu_a > r.cpu_b) std::swap(r.cpu_a, r.cpu_b);
    const int a = machine->index_of(r.cpu_a), b = machine->index_of(r.cpu_b);
    r.latency_ns = machine->latency(a, b);
    r.relation = machine->relation(a, b);
    out.push_back(r);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& x, const auto& y) { return x.latency_ns < y.latency_ns; });
  return out;
}

Result<std::vector<int>> recommend_compute_cpus(RecommendInputs& inputs, int threads) {
  auto plan = solve_quick(threads_spec(threads, QuickPolicy::scatter), inputs);
  if (!plan) return plan.error();
  std::vector<int> out;
  for (const auto& a : plan->assignments) out.push_back(a.cpus.first());
  return out;
}

}  // namespace threadmap::plan
