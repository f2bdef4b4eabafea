// make_plan: spec + machine -> plan (see planner.hpp).
#include "src/plan/planner.hpp"

#include <chrono>

#include "src/plan/baselines.hpp"
#include "src/plan/explain.hpp"
#include "src/plan/machine_model.hpp"
#include "src/plan/one_line.hpp"

namespace threadmap::plan {

namespace {

Result<Plan> plan_unchecked(const WorkloadSpec& spec, const PlanInputs& inputs) {
  MachineInputs machine_inputs;
  machine_inputs.topology = inputs.topology;
  machine_inputs.matrix = inputs.matrix;
  machine_inputs.allowed = spec.allowed;
  machine_inputs.reserved = spec.reserved;
  if (spec.prefer_isolated) machine_inputs.isolated = inputs.isolated;
  auto machine = build_machine(machine_inputs);
  if (!machine) return machine.error().with_context("spec " + spec.source);
  auto problem = build_problem(spec, *machine, inputs.topology);
  if (!problem) return problem.error();

  Plan plan;
  const auto start = std::chrono::steady_clock::now();
  Solution solution;
  const std::optional<QuickPolicy> policy = inputs.placement_policy;
  const std::optional<Policy> cpu_order = policy ? cpu_policy(*policy) : std::nullopt;
  if (policy == QuickPolicy::spread) {
    solution.cpu_of = spread_placement(*machine, problem->size());
    solution.solver = "hwloc-distrib spreading (policy spread, not optimised)";
  } else if (cpu_order && inputs.topology) {
    solution.cpu_of = policy_placement(*machine, *inputs.topology, *cpu_order, problem->size());
    solution.solver = std::string("CPU policy ") + policy_name(*cpu_order) +
                      " (the order threadmap run pins in; not optimised)";
  } else {
    auto solved = solve(*problem, inputs.solve);
    if (!solved) return solved.error().with_context("spec " + spec.source);
    solution = std::move(*solved);
  }
  plan.solve_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  plan.cost = evaluate(*problem, solution.cpu_of);
  plan.solver = solution.solver;
  plan.proven_optimal = solution.proven_optimal;
  plan.stopped_by_time = solution.stopped_by_time;
  plan.search_nodes = solution.nodes;
  plan.passes = solution.passes;
  plan.model = machine->model;
  plan.source = spec.source;
  plan.kinds_note = machine->kinds_note;
  plan.candidates = machine->candidate_set;
  if (machine->has_isolated)
    plan.notes.push_back("isolated CPUs preferred: " +
                         (machine_inputs.isolated & machine->candidate_set).to_list());
  if (!spec.reserved.empty()) plan.notes.push_back("reserved (not used): " + spec.reserved);

  std::vector<std::string> why = explain(*problem, solution.cpu_of);
  for (std::size_t t = 0; t < spec.threads.size(); ++t) {
    plan.assignments.push_back(
        PlannedThread{spec.threads[t].name, {machine->cpus[solution.cpu_of[t]].cpu}, why[t]});
    plan.assignments.back().memory_node = spec.threads[t].memory_node;  // `run` applies it
  }
  for (const Baseline& b : baselines(*machine, problem->size(), inputs.topology))
    plan.baselines.emplace_back(b.name, evaluate(*problem, b.cpu_of));
  return plan;
}

}  // namespace

Result<Plan> make_plan(const WorkloadSpec& spec, const PlanInputs& inputs) {
  auto plan = plan_unchecked(spec, inputs);
  if (!plan) return one_line(plan.error());  // expressions and names are quoted in messages
  return plan;
}

}  // namespace threadmap::plan
