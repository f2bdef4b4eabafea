// make_plan: spec + machine -> plan (see planner.hpp).
#include "src/plan/planner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "src/plan/baselines.hpp"
#include "src/plan/explain.hpp"
#include "src/plan/machine_model.hpp"
#include "src/plan/one_line.hpp"
#include "src/plan/solvers.hpp"

namespace threadmap::plan {

namespace {

// A baseline the solver could have returned itself: every thread on a CPU it may use and every
// share-core group on one core (baselines ignore both on purpose).
bool respects_structure(const Problem& p, const std::vector<int>& cpu_of) {
  std::vector<int> sorted = cpu_of;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return false;
  for (int t = 0; t < p.size(); ++t)
    if (!p.allowed(t, cpu_of[t])) return false;
  return evaluate(p, cpu_of).share_core == 0;
}

// Never return worse than a hand placement: when a baseline the solver could have produced
// beats its answer (rule breaks first, then cost), search again from that baseline (local
// search only improves, so the result is at least as good) and keep the better.
void seed_with_baselines(const Problem& p, const MachineModel& machine, const PlanInputs& inputs,
                         Solution& solution, std::vector<std::string>& notes) {
  const double eps = 1e-9;
  double current = evaluate(p, solution.cpu_of).objective();
  const Baseline* best = nullptr;
  double best_objective = current;
  std::vector<Baseline> all = baselines(machine, p.size(), inputs.topology);
  for (const Baseline& b : all) {
    if (!respects_structure(p, b.cpu_of)) continue;
    double objective = evaluate(p, b.cpu_of).objective();
    if (objective < best_objective - eps * (1 + std::abs(best_objective))) {
      best = &b;
      best_objective = objective;
    }
  }
  if (!best) return;
  Solution seed;
  seed.cpu_of = best->cpu_of;
  seed.cost = best_objective;
  seed.solver = solution.solver;
  seed.start = best->name + " baseline";
  Solution improved = iterate_local(p, std::move(seed), inputs.solve);
  if (evaluate(p, improved.cpu_of).objective() > best_objective) {  // cannot happen; be sure
    improved.cpu_of = best->cpu_of;
  }
  notes.push_back("the " + best->name + " baseline beat the search's answer (objective " +
                  std::to_string(best_objective) + " < " + std::to_string(current) +
                  "): searched again from it");
  improved.solver = solution.solver + ", seeded with the " + best->name + " baseline";
  improved.proven_optimal = false;
  improved.nodes += solution.nodes;
  improved.passes += solution.passes;
  improved.stopped_by_time = improved.stopped_by_time || solution.stopped_by_time;
  solution = std::move(improved);
}

// Said when the time limit ended a search that had not yet improved on where it started: the
// answer is that placement as it was, which the reader would otherwise take for a search's.
std::string unimproved_note(const Solution& solution, std::uint64_t min_steps) {
  const std::string what =
      solution.start == "greedy" ? "the greedy placement" : "the " + solution.start;
  return "returned " + what + " unimproved: the time limit stopped the search after " +
         std::to_string(solution.nodes) + " moves (" + std::to_string(min_steps) +
         " owed before it could stop it)";
}

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
  // One deadline for the whole search: greedy, iterated local search, branch and bound and the
  // search again from a baseline all stop by it (`plan --time-limit` bounds them together).
  PlanInputs timed = inputs;
  if (inputs.solve.whole_time_limit_s > 0)
    timed.solve.deadline =
        start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(inputs.solve.whole_time_limit_s));
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
    auto solved = solve(*problem, timed.solve);
    if (!solved) return solved.error().with_context("spec " + spec.source);
    solution = std::move(*solved);
    seed_with_baselines(*problem, *machine, timed, solution, plan.notes);
    plan.search_start = solution.start;
    plan.improved_on_start = solution.improved_on_start;
    plan.min_steps = inputs.solve.min_steps;
    if (!solution.improved_on_start && solution.stopped_by_time)
      plan.notes.push_back(unimproved_note(solution, inputs.solve.min_steps));
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
  if (!spec.assumed.empty()) plan.notes.push_back(spec.assumed);

  std::vector<std::string> why = explain(*problem, solution.cpu_of);
  for (std::size_t t = 0; t < spec.threads.size(); ++t) {
    plan.assignments.push_back(PlannedThread{spec.threads[t].name,
                                             CpuSet{machine->cpus[solution.cpu_of[t]].cpu}, why[t],
                                             spec.threads[t].memory_node});
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
