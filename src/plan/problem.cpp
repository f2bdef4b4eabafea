// Turning a validated spec and a machine model into the solver's problem, and the one cost
// function every solver and baseline is judged by.
#include "src/plan/problem.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace threadmap::plan {
namespace {

Result<CpuSet> resolve_cpus(const Topology* topo, const std::string& expr) {
  return topo ? topo->resolve(expr) : CpuSet::parse(expr);
}

// Share-core-with links form trees (cycles were refused by the parser); each tree is one unit.
void build_units(const WorkloadSpec& spec, Problem& p) {
  const int n = static_cast<int>(spec.threads.size());
  auto root_of = [&](int t) {
    while (spec.threads[t].share_core_with >= 0) t = spec.threads[t].share_core_with;
    return t;
  };
  std::map<int, int> unit_of_root;
  for (int t = 0; t < n; ++t) {
    int root = root_of(t);
    auto [it, inserted] = unit_of_root.emplace(root, static_cast<int>(p.units.size()));
    if (inserted) p.units.push_back(Unit{{root}});
    if (t != root) p.units[it->second].threads.push_back(t);
    p.threads[t].unit = it->second;
  }
}

Status check_feasible(const WorkloadSpec& spec, const Problem& p) {
  const MachineModel& m = *p.machine;
  int exclusive = 0, groups = 0, single_threads = 0, group_cpus = 0;
  std::size_t widest_core = 0;
  for (const auto& c : p.core_cpus) widest_core = std::max(widest_core, c.size());
  for (const Unit& u : p.units) {
    if (u.group()) {
      ++groups;
      group_cpus += static_cast<int>(std::min(u.threads.size(), widest_core));
    } else {
      ++single_threads;
    }
  }
  for (const ProblemThread& t : p.threads) exclusive += t.exclusive ? 1 : 0;
  // A quick form (--threads, --pairs) has no spec file to edit: the flag is the way.
  const bool quick = spec.source.rfind("--", 0) == 0;
  const std::string where = quick ? spec.source + ": " : "spec " + spec.source + ": ";
  const std::string allow =
      quick ? "--oversubscribe" : "--oversubscribe, or \"oversubscribe\": true in the spec";
  if (exclusive + groups > m.core_count && !p.oversubscribe)
    return Error::invalid(where + std::to_string(exclusive) + " exclusive thread(s) and " +
                          std::to_string(groups) + " share-core group(s) need " +
                          std::to_string(exclusive + groups) + " whole cores but only " +
                          std::to_string(m.core_count) + " are available (" +
                          m.candidate_set.to_list() + ")");
  if (!p.oversubscribe && single_threads + group_cpus > static_cast<int>(m.size()))
    return Error::invalid(where + std::to_string(spec.threads.size()) + " threads need " +
                          std::to_string(single_threads + group_cpus) + " CPUs but only " +
                          std::to_string(m.size()) + " are available (" +
                          m.candidate_set.to_list() + "); allow oversubscription (" + allow +
                          ") to let threads share CPUs");
  return {};
}

}  // namespace

double Problem::unary(int thread, int cpu) const {
  const ProblemThread& t = threads[thread];
  const PlanCpu& c = machine->cpus[cpu];
  double cost = 0;
  if (machine->has_efficiency && c.efficiency != t.background) cost += penalties.wrong_kind;
  if (t.memory_node >= 0 && c.numa >= 0 && c.numa != t.memory_node) cost += penalties.remote_numa;
  if (machine->has_isolated && !c.isolated) cost += penalties.not_isolated;
  return cost;
}

namespace {

// A thread's memory-node is an OS node number (numactl, /sys); one the machine lacks is an
// error, not a silent "remote" penalty on every CPU.
Status check_memory_node(const WorkloadSpec& spec, const ThreadSpec& s,
                         const MachineModel& machine) {
  if (s.memory_node < 0 || !machine.numa_known ||
      std::find(machine.numa_nodes.begin(), machine.numa_nodes.end(), s.memory_node) !=
          machine.numa_nodes.end())
    return {};
  std::string nodes;
  for (int node : machine.numa_nodes) nodes += (nodes.empty() ? "" : ",") + std::to_string(node);
  return Error::invalid("spec " + spec.source + ": thread '" + s.name + "' memory-node " +
                        std::to_string(s.memory_node) + ": no NUMA node " +
                        std::to_string(s.memory_node) +
                        " on this machine (OS node numbers: " + nodes + ")");
}

// The CPUs a thread's `cpus` allows, as a mask over the machine's CPUs; fails naming the
// thread when they are reserved or not among the CPUs planned on.
Result<std::vector<char>> allowed_mask(const WorkloadSpec& spec, const ThreadSpec& s,
                                       const MachineModel& machine, const Topology* topology,
                                       const CpuSet& reserved) {
  const std::string where =
      "spec " + spec.source + ": thread '" + s.name + "' cpus '" + s.cpus + "'";
  auto set = resolve_cpus(topology, s.cpus);
  if (!set) return set.error().with_context(where);
  if (set->intersects(reserved))
    return Error::invalid(where + ": CPU " + (*set & reserved).to_list() + " is reserved");
  CpuSet outside = *set - machine.candidate_set;
  if (!outside.empty())
    return Error::invalid(where + ": CPU " + outside.to_list() +
                          " is not among the CPUs to plan on (" + machine.candidate_set.to_list() +
                          ")");
  std::vector<char> allowed(machine.size(), 0);
  for (int cpu : set->to_vector()) allowed[machine.index_of(cpu)] = 1;
  return allowed;
}

// The spec's threads as the solver sees them; fails on a bad memory node or CPU list.
Status add_threads(const WorkloadSpec& spec, const MachineModel& machine, const Topology* topology,
                   Problem& p) {
  CpuSet reserved;
  if (!spec.reserved.empty()) {
    auto r = resolve_cpus(topology, spec.reserved);
    if (r) reserved = *r;  // a bad expression was already reported by build_machine
  }
  p.threads.resize(spec.threads.size());
  for (std::size_t i = 0; i < spec.threads.size(); ++i) {
    const ThreadSpec& s = spec.threads[i];
    ProblemThread& t = p.threads[i];
    t.name = s.name;
    t.compute = s.compute;
    t.latency_critical = s.latency_critical;
    t.background = s.background;
    t.exclusive = s.exclusive;
    t.memory_node = s.memory_node;
    if (Status st = check_memory_node(spec, s, machine); !st) return st;
    if (!s.cpus.empty()) {
      auto allowed = allowed_mask(spec, s, machine, topology, reserved);
      if (!allowed) return allowed.error();
      t.allowed = std::move(*allowed);
    }
  }
  return {};
}

// Edges between the same two threads are summed; each thread lists its neighbours.
void add_edges(const WorkloadSpec& spec, Problem& p) {
  std::map<std::pair<int, int>, double> merged;
  for (const EdgeSpec& e : spec.edges) {
    merged[{std::min(e.a, e.b), std::max(e.a, e.b)}] += e.weight;
    p.total_weight += e.weight;
  }
  for (const auto& [ends, weight] : merged) {
    p.threads[ends.first].neighbours.emplace_back(ends.second, weight);
    p.threads[ends.second].neighbours.emplace_back(ends.first, weight);
  }
}

// The fastest latency a pair can have, and the penalties, in units of the machine's reference
// latency so soft rules weigh like the latencies they trade against.
void set_penalties(const WorkloadSpec& spec, const MachineModel& machine, Problem& p) {
  const int cpus = static_cast<int>(machine.size());
  const int n = static_cast<int>(spec.threads.size());
  int backgrounds = 0, criticals = 0;
  for (const ThreadSpec& s : spec.threads) {
    backgrounds += s.background;
    criticals += s.latency_critical;
  }
  double slowest = 0;
  p.min_latency = cpus > 1 ? machine.latency(0, 1) : machine.latency(0, 0);
  for (int i = 0; i < cpus; ++i)
    for (int j = 0; j < cpus; ++j) {
      double d = machine.latency(i, j);
      slowest = std::max(slowest, d);
      if (i != j || p.oversubscribe || cpus == 1) p.min_latency = std::min(p.min_latency, d);
    }
  const double unit = machine.reference_ns;
  p.penalties.background_core = 2 * unit;
  p.penalties.background_domain = unit;
  p.penalties.wrong_kind = unit;
  p.penalties.remote_numa = unit;
  p.penalties.not_isolated = spec.prefer_isolated ? unit / 4 : 0;
  // Larger than every soft term together, so a hard rule is only broken when it must be.
  p.penalties.hard =
      2 * (p.total_weight * slowest + 3 * unit * backgrounds * criticals + 3.25 * unit * n) + unit;
}

}  // namespace

Result<Problem> build_problem(const WorkloadSpec& spec, const MachineModel& machine,
                              const Topology* topology) {
  Problem p;
  p.machine = &machine;
  p.oversubscribe = spec.oversubscribe;
  if (Status st = add_threads(spec, machine, topology, p); !st) return st.error();
  add_edges(spec, p);
  p.core_cpus.assign(machine.core_count, {});
  for (int c = 0; c < static_cast<int>(machine.size()); ++c)
    p.core_cpus[machine.cpus[c].core].push_back(c);
  build_units(spec, p);
  set_penalties(spec, machine, p);
  if (auto st = check_feasible(spec, p); !st) return st.error();
  return p;
}

CostBreakdown evaluate(const Problem& p, const std::vector<int>& cpu_of) {
  const MachineModel& m = *p.machine;
  CostBreakdown cost;
  cost.hard = p.penalties.hard;
  const int n = p.size();
  for (int t = 0; t < n; ++t) {
    for (const auto& [v, w] : p.threads[t].neighbours)
      if (v > t) cost.communication += w * m.latency(cpu_of[t], cpu_of[v]);
    const ProblemThread& th = p.threads[t];
    const PlanCpu& c = m.cpus[cpu_of[t]];
    if (m.has_efficiency && c.efficiency != th.background) cost.kinds += p.penalties.wrong_kind;
    if (th.memory_node >= 0 && c.numa >= 0 && c.numa != th.memory_node)
      cost.numa += p.penalties.remote_numa;
    if (m.has_isolated && !c.isolated) cost.isolated += p.penalties.not_isolated;
  }
  std::vector<int> compute(m.core_count, 0), threads(m.core_count, 0), exclusive(m.core_count, 0);
  std::vector<int> bg_core(m.core_count, 0), lc_core(m.core_count, 0);
  std::vector<int> bg_dom(m.domain_count, 0), lc_dom(m.domain_count, 0);
  std::set<std::pair<int, int>>
      unit_on_cpu;  // (cpu, unit): a group stacking on its core is one unit
  for (int t = 0; t < n; ++t) {
    const ProblemThread& th = p.threads[t];
    const PlanCpu& c = m.cpus[cpu_of[t]];
    compute[c.core] += th.compute;
    threads[c.core] += 1;
    exclusive[c.core] += th.exclusive;
    bg_core[c.core] += th.background;
    lc_core[c.core] += th.latency_critical;
    bg_dom[c.domain] += th.background;
    lc_dom[c.domain] += th.latency_critical;
    unit_on_cpu.emplace(cpu_of[t], th.unit);
  }
  for (int c = 0; c < m.core_count; ++c) {
    cost.compute_smt_pairs += compute[c] * (compute[c] - 1) / 2;
    cost.exclusive_conflicts += exclusive[c] * (threads[c] - 1);
    cost.background += p.penalties.background_core * bg_core[c] * lc_core[c];
  }
  for (int d = 0; d < m.domain_count; ++d)
    cost.background += p.penalties.background_domain * bg_dom[d] * lc_dom[d];
  std::vector<int> units_on(m.size(), 0);
  for (const auto& [cpu, unit] : unit_on_cpu) ++units_on[cpu];
  for (int count : units_on)
    if (count > 1) cost.oversubscribed_threads += count - 1;
  for (const Unit& u : p.units)
    for (std::size_t k = 1; k < u.threads.size(); ++k)
      if (m.cpus[cpu_of[u.threads[k]]].core != m.cpus[cpu_of[u.threads[0]]].core)
        cost.share_core += 4 * m.reference_ns;
  return cost;
}

}  // namespace threadmap::plan
