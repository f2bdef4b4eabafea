#include "src/apply/run_request.hpp"

#include <optional>

#include "src/apply/memory_policy.hpp"
#include "src/apply/pin_env.hpp"
#include "src/apply/placement.hpp"
#include "src/apply/static_program.hpp"
#include "src/core/given_cpus.hpp"
#include "src/os/install_layout.hpp"
#include "src/os/process.hpp"
#include "src/plan/plan_file.hpp"
#include "src/plan/policy.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::apply {
namespace {

// The plan's pinning rules; a plan that cannot be read, or that does not fit the rank's share,
// is the plan file's fault (the work's), not the command line's.
Result<PinRules> plan_rules(const RunRequest& r, std::optional<plan::PlanFile>* plan_read) {
  auto file = plan::read_plan_file(r.plan_path);
  if (!file) return file.error().about("plan_path");
  if (plan_read) *plan_read = *file;
  if (!r.within.empty()) {
    for (const PlannedThread& t : file->assignments)
      if (!(t.cpus - r.within).empty())
        return Error::invalid("thread '" + t.thread + "' is planned on CPUs " + t.cpus.to_list() +
                              ", outside this rank's share " + r.within.to_list() +
                              " (plan for one rank's share: its CPUs as the allowed set)")
            .about("plan_path");
  }
  return rules_from_plan(*file, r.by_name);
}

// The CPU list's rules: threads placed over the CPUs in the policy's order.
Result<PinRules> cpu_list_rules(const RunRequest& r, const Topology& topo) {
  auto policy = plan::parse_policy(r.policy);
  if (!policy) return policy.error().as_bad_input("policy");
  auto cpus = resolve_given_cpus(topo, r.cpus, "cpus");
  if (!cpus) return cpus.error();
  // The planner's policy engine: `run --policy` pins what `plan --policy` plans.
  return rules_from_order(plan::order_cpus(topo, *cpus, *policy));
}

Result<PinRules> build_rules(const RunRequest& r, const Topology& topo,
                             std::optional<plan::PlanFile>* plan_read) {
  PinRules rules;
  if (!r.plan_path.empty()) {
    auto planned = plan_rules(r, plan_read);
    if (!planned) return planned.error();
    rules = std::move(*planned);
  } else if (!r.cpus.empty()) {
    auto listed = cpu_list_rules(r, topo);
    if (!listed) return listed.error();
    rules = std::move(*listed);
  }
  if (auto st = add_skips(rules, r.skip); !st) return st.error().as_bad_input("skip");
  for (const std::string& item : r.libs)
    if (auto st = add_library_rule(rules, topo, item); !st) return st.error().as_bad_input("libs");
  rules.inherit = r.inherit;
  rules.override_affinity = r.override_affinity;
  return rules;
}

// The memory part of the rules: --mem checked against this machine's nodes, and the plan's
// memory nodes checked too (a plan made for another machine may name nodes this one lacks).
// Fills `note` with the line `run --verbose` prints.
Status add_memory(PinRules& rules, const RunRequest& r, const Topology& topo, std::string& note) {
  const std::vector<NumaNode> nodes = topo.numa_nodes();
  const int machine_nodes = nodes.empty() ? 1 : static_cast<int>(nodes.size());
  std::vector<int> planned;  // plan threads with a memory node, and the nodes
  if (rules.main_memory_node) planned.push_back(*rules.main_memory_node);
  for (int n : rules.slot_memory_nodes)
    if (n >= 0) planned.push_back(n);
  for (const auto& named : rules.name_memory_nodes) planned.push_back(named.second);
  if (!planned.empty() && r.memory.empty()) {  // --mem replaces them: then they need not exist
    for (int n : planned) {
      MemoryPolicy one{MemoryMode::preferred, {n}};
      if (auto st = check_memory_policy(one, nodes); !st)
        return st.error().with_context("memory_node of a planned thread").about("plan_path");
    }
  }
  if (!r.memory.empty()) {
    auto policy = parse_memory_policy(r.memory);
    if (!policy) return policy.error().as_bad_input("memory");
    if (auto st = check_memory_policy(*policy, nodes); !st)
      return st.error().as_bad_input("memory");
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

// What a placed program sees of its CPUs (the pin library's view: src/preload/pin/pin_view.h),
// and what cannot show it them.
std::string view_line(const CpuSet& share) {
  const std::string count = std::to_string(share.count());
  return "the program sees CPUs " + share.to_list() + " (" + count +
         ") where runtimes size themselves (glibc's sched_getaffinity and "
         "pthread_getaffinity_np, libc's syscall function; the main thread runs on all " +
         count +
         " until its first thread; Go with GODEBUG=updatemaxprocs=0), as under taskset, while "
         "each thread runs where the rules place it; not shown to /proc/self/status "
         "(Cpus_allowed) or to a system call made without libc on a placed thread: those read "
         "the thread's own CPUs";
}

// Go 1.25 and later read the affinity mask again about once a second (sysmon, with a raw system
// call, on a thread the pin library placed on one CPU) and lower GOMAXPROCS to it;
// updatemaxprocs=0 keeps the value the runtime read from the share at start. Added to the
// user's GODEBUG unless it names the setting itself or the share view is off
// (TM_PIN_SHARE_VIEW=0); a program that is not Go ignores the variable.
std::optional<std::string> godebug_keeping_maxprocs() {
  std::optional<std::string> current;
  for (const auto& [name, value] : os::environment_variables()) {
    if (name == "GODEBUG") current = value;
    if (name == "TM_PIN_SHARE_VIEW" && value == "0") return std::nullopt;
  }
  if (current && current->find("updatemaxprocs") != std::string::npos) return std::nullopt;
  return current && !current->empty() ? *current + ",updatemaxprocs=0" : "updatemaxprocs=0";
}

}  // namespace

Result<os::LaunchSpec> prepare_run(const RunRequest& r, std::string* memory_note,
                                   std::optional<plan::PlanFile>* plan_read,
                                   std::string* placement_note, std::string* view_note) {
  // A request comes from run_request only, which refused an empty command.
  // --mem alone also needs the pin library: it is what sets the policy in every thread.
  const bool pinning =
      !r.plan_path.empty() || !r.cpus.empty() || !r.libs.empty() || !r.memory.empty();
  os::LaunchSpec spec;
  spec.argv = r.command;
  WholeProcessRequest whole;
  whole.thread_cache = r.thread_cache;
  if (pinning) {
    auto topo = Topology::load_this_machine();
    if (!topo) return topo.error();
    auto rules = build_rules(r, *topo, plan_read);
    if (!rules) return rules.error();
    std::string note;
    if (auto st = add_memory(*rules, r, *topo, note); !st) return st.error();
    if (memory_note) *memory_note = note;
    // What the rules cannot say to the pin library (CPUs this process may not use, a pattern
    // with a separator in it, more threads than it holds) comes from the values given.
    whole.cpus = cpus_of_rules(*rules);
    if (!r.memory.empty())
      if (auto policy = memory_policy_for(r.memory, *topo); policy) whole.memory = *policy;
    whole.per_thread_memory = rules->main_memory_node || !rules->name_memory_nodes.empty();
    for (int node : rules->slot_memory_nodes) whole.per_thread_memory |= node >= 0;
    auto config = encode_pin_config(*rules, topo->allowed_cpus());
    if (!config) return config.error().as_bad_input("");
    auto lib = os::find_preload_library("pin");
    if (!lib) return lib.error();
    spec.preload.push_back(*lib);
    spec.set_env.emplace_back(kPinConfigVar, *config);
  }
  if (r.thread_cache) {
    auto lib = os::find_preload_library("cache");
    if (!lib) return lib.error();
    spec.preload.push_back(*lib);  // after the pin library: its wrapper runs on top
  }
  // A program that never runs ld.so cannot take the preloads: it is placed as a whole process
  // (taskset, numactl) and the caller says so; the variables stay for the programs it starts.
  WholeProcessPlacement placed = whole_process_placement(preload_reach(r.command[0]), whole);
  spec.cpus = placed.cpus;
  spec.memory_mode = placed.memory_mode;
  spec.memory_nodes = placed.memory_nodes;
  if (placement_note) *placement_note = placed.warning;
  if (placed.warning.empty() && !whole.cpus.empty()) {
    if (view_note) *view_note = view_line(whole.cpus);
    if (auto godebug = godebug_keeping_maxprocs()) spec.set_env.emplace_back("GODEBUG", *godebug);
  }
  for (const auto& variable : r.environment) spec.set_env.push_back(variable);
  if (r.verbose) spec.set_env.emplace_back("TM_VERBOSE", "1");
  if (!r.line_tag.empty()) spec.set_env.emplace_back("TM_LINE_TAG", r.line_tag);
  return spec;
}

}  // namespace threadmap::apply
