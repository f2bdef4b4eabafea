#include "src/apply/run_request.hpp"

#include "src/apply/memory_policy.hpp"
#include "src/apply/pin_env.hpp"
#include "src/apply/placement.hpp"
#include "src/apply/static_program.hpp"
#include "src/os/install_layout.hpp"
#include "src/plan/plan_file.hpp"
#include "src/plan/policy.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::apply {
namespace {

Result<PinRules> build_rules(const RunRequest& r, const Topology& topo, RunField& field,
                             std::optional<plan::PlanFile>* plan_read) {
  PinRules rules;
  if (!r.plan_path.empty()) {
    field = RunField::plan;
    Result<plan::PlanFile> plan =
        r.plan ? Result<plan::PlanFile>(*r.plan) : plan::read_plan_file(r.plan_path);
    if (!plan) return plan.error();
    if (plan_read) *plan_read = *plan;
    if (!r.within.empty()) {
      for (const PlannedThread& t : plan->assignments)
        if (!(t.cpus - r.within).empty())
          return Error::invalid("thread '" + t.thread + "' is planned on CPUs " + t.cpus.to_list() +
                                ", outside this rank's share " + r.within.to_list() +
                                " (plan for one rank's share: plan --allowed)");
    }
    rules = rules_from_plan(*plan, r.by_name);
  } else if (!r.cpus.empty()) {
    field = RunField::policy;
    auto policy = plan::parse_policy(r.policy);
    if (!policy) return policy.error();
    field = RunField::cpus;
    auto cpus = topo.resolve(r.cpus);
    if (!cpus) return cpus.error();
    if (cpus->empty()) return Error::invalid("the CPU set '" + r.cpus + "' is empty");
    // The planner's policy engine: `run --policy` pins what `plan --policy` plans.
    rules = rules_from_order(plan::order_cpus(topo, *cpus, *policy));
  }
  field = RunField::skip;
  if (auto st = add_skips(rules, r.skip); !st) return st.error();
  field = RunField::libs;
  for (const std::string& item : r.libs)
    if (auto st = add_library_rule(rules, topo, item); !st) return st.error();
  field = RunField::none;
  rules.inherit = r.inherit;
  rules.override_affinity = r.override_affinity;
  return rules;
}

// The memory part of the rules: --mem checked against this machine's nodes, and the plan's
// memory nodes checked too (a plan made for another machine may name nodes this one lacks).
// Fills `note` with the line `run --verbose` prints.
Status add_memory(PinRules& rules, const RunRequest& r, const Topology& topo, RunField& field,
                  std::string& note) {
  const std::vector<NumaNode> nodes = topo.numa_nodes();
  const int machine_nodes = nodes.empty() ? 1 : static_cast<int>(nodes.size());
  std::vector<int> planned;  // plan threads with a memory node, and the nodes
  if (rules.main_memory_node) planned.push_back(*rules.main_memory_node);
  for (int n : rules.slot_memory_nodes)
    if (n >= 0) planned.push_back(n);
  for (const auto& named : rules.name_memory_nodes) planned.push_back(named.second);
  if (!planned.empty() && r.memory.empty()) {  // --mem replaces them: then they need not exist
    field = RunField::plan;
    for (int n : planned) {
      MemoryPolicy one{MemoryMode::preferred, {n}};
      if (auto st = check_memory_policy(one, nodes); !st)
        return st.error().with_context("memory_node of a planned thread");
    }
  }
  if (!r.memory.empty()) {
    field = RunField::memory;
    auto policy = parse_memory_policy(r.memory);
    if (!policy) return policy.error();
    if (auto st = check_memory_policy(*policy, nodes); !st) return st.error();
    rules.memory = encode_memory_policy(*policy);
    note = describe_memory_policy(*policy, machine_nodes);
    if (!planned.empty()) {
      // The command line is the later, explicit word: it replaces the plan's nodes.
      note += "; it replaces the plan's memory nodes";
      rules.main_memory_node.reset();
      rules.slot_memory_nodes.clear();
      rules.name_memory_nodes.clear();
    }
  } else if (!planned.empty()) {
    note = "memory policy: " + std::to_string(planned.size()) +
           " planned thread(s) prefer their memory_node (set_mempolicy MPOL_PREFERRED when "
           "each starts, or names itself with --by-name; OS node numbers); other threads keep "
           "the default";
    if (machine_nodes <= 1) note += "; no-op on a 1-node machine: all memory is on node 0";
  }
  field = RunField::none;
  return {};
}

// Every CPU the rules name: what a whole process gets when its threads cannot be placed.
CpuSet cpus_of_rules(const PinRules& rules) {
  CpuSet all;
  if (rules.main_cpus) all |= *rules.main_cpus;
  for (const auto& slot : rules.slots)
    if (slot) all |= *slot;
  for (const CpuSet& c : rules.cycle) all |= c;
  for (const PatternRule& p : rules.by_name) all |= p.cpus;
  for (const PatternRule& p : rules.by_library) all |= p.cpus;
  return all;
}

}  // namespace

Result<os::LaunchSpec> prepare_run(const RunRequest& r, RunField* failed_field,
                                   std::string* memory_note,
                                   std::optional<plan::PlanFile>* plan_read,
                                   std::string* placement_note) {
  RunField field = RunField::none;
  auto fail = [&](RunField f, Error e) -> Result<os::LaunchSpec> {
    if (failed_field) *failed_field = f;
    return e;
  };
  if (r.command.empty()) return fail(RunField::command, Error::invalid("no command given"));
  // --mem alone also needs the pin library: it is what sets the policy in every thread.
  const bool pinning =
      !r.plan_path.empty() || !r.cpus.empty() || !r.libs.empty() || !r.memory.empty();
  if (!r.plan_path.empty() && !r.cpus.empty())
    return fail(RunField::cpus, Error::invalid("a plan and a CPU list cannot be combined"));
  if (r.by_name && r.plan_path.empty())
    return fail(RunField::plan, Error::invalid("matching by name needs a plan"));
  if (!pinning && !r.thread_cache)
    return fail(RunField::none, Error::invalid("nothing to apply: no plan, CPUs, library rule, "
                                               "memory policy or thread cache"));

  os::LaunchSpec spec;
  spec.argv = r.command;
  WholeProcessRequest whole;
  whole.thread_cache = r.thread_cache;
  if (pinning) {
    auto topo = Topology::load_this_machine();
    if (!topo) return fail(RunField::none, topo.error());
    auto rules = build_rules(r, *topo, field, plan_read);
    if (!rules) return fail(field, rules.error());
    std::string note;
    if (auto st = add_memory(*rules, r, *topo, field, note); !st) return fail(field, st.error());
    if (memory_note) *memory_note = note;
    whole.cpus = cpus_of_rules(*rules);
    if (!r.memory.empty())
      if (auto policy = memory_policy_for(r.memory, *topo); policy) whole.memory = *policy;
    whole.per_thread_memory = rules->main_memory_node || !rules->name_memory_nodes.empty();
    for (int node : rules->slot_memory_nodes) whole.per_thread_memory |= node >= 0;
    auto config = encode_pin_config(*rules, topo->allowed_cpus());
    if (!config) return fail(RunField::none, config.error());
    auto lib = os::find_preload_library("pin");
    if (!lib) return fail(RunField::none, lib.error());
    spec.preload.push_back(*lib);
    spec.set_env.emplace_back(kPinConfigVar, *config);
  }
  if (r.thread_cache) {
    auto lib = os::find_preload_library("cache");
    if (!lib) return fail(RunField::none, lib.error());
    spec.preload.push_back(*lib);  // after the pin library: its wrapper runs on top
  }
  // A program that never runs ld.so cannot take the preloads: it is placed as a whole process
  // (taskset, numactl) and the caller says so; the variables stay for the programs it starts.
  WholeProcessPlacement placed = whole_process_placement(preload_reach(r.command[0]), whole);
  spec.cpus = placed.cpus;
  spec.memory_mode = placed.memory_mode;
  spec.memory_nodes = placed.memory_nodes;
  if (placement_note) *placement_note = placed.warning;
  for (const auto& variable : r.environment) spec.set_env.push_back(variable);
  if (r.verbose) spec.set_env.emplace_back("TM_VERBOSE", "1");
  if (!r.line_tag.empty()) spec.set_env.emplace_back("TM_LINE_TAG", r.line_tag);
  return spec;
}

}  // namespace threadmap::apply
