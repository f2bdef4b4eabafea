// Incremental cost bookkeeping for the solvers (see placement_state.hpp). The formulas mirror
// evaluate() in problem.cpp term by term; the unit tests check that they agree.
#include "src/plan/placement_state.hpp"

namespace threadmap::plan {

PlacementState::PlacementState(const Problem& problem)
    : p_(problem),
      cpu_of_(problem.threads.size(), -1),
      units_on_(problem.machine->size(), 0),
      compute_(problem.machine->core_count, 0),
      threads_(problem.machine->core_count, 0),
      exclusive_(problem.machine->core_count, 0),
      bg_core_(problem.machine->core_count, 0),
      lc_core_(problem.machine->core_count, 0),
      bg_dom_(problem.machine->domain_count, 0),
      lc_dom_(problem.machine->domain_count, 0) {}

bool PlacementState::unit_member_on(int t, int cpu) const {
  const Unit& u = p_.units[p_.threads[t].unit];
  if (!u.group()) return false;
  for (int other : u.threads)
    if (other != t && cpu_of_[other] == cpu) return true;
  return false;
}

double PlacementState::add_cost(int t, int cpu) const {
  const MachineModel& m = *p_.machine;
  const ProblemThread& th = p_.threads[t];
  const PlanCpu& c = m.cpus[cpu];
  double cost = p_.unary(t, cpu);
  for (const auto& [v, w] : th.neighbours)
    if (cpu_of_[v] >= 0) cost += w * m.latency(cpu, cpu_of_[v]);
  const Penalties& pen = p_.penalties;
  if (th.compute) cost += pen.hard * compute_[c.core];
  cost += pen.hard * (exclusive_[c.core] + (th.exclusive ? threads_[c.core] : 0));
  if (th.background)
    cost += pen.background_core * lc_core_[c.core] + pen.background_domain * lc_dom_[c.domain];
  if (th.latency_critical)
    cost += pen.background_core * bg_core_[c.core] + pen.background_domain * bg_dom_[c.domain];
  if (units_on_[cpu] > 0 && !unit_member_on(t, cpu)) cost += pen.hard;
  return cost;
}

bool PlacementState::can_take(int t, int cpu) const {
  if (!p_.allowed(t, cpu)) return false;
  return p_.oversubscribe || units_on_[cpu] == 0 || unit_member_on(t, cpu);
}

void PlacementState::count(int t, int cpu, int sign) {
  const ProblemThread& th = p_.threads[t];
  const PlanCpu& c = p_.machine->cpus[cpu];
  compute_[c.core] += sign * th.compute;
  threads_[c.core] += sign;
  exclusive_[c.core] += sign * th.exclusive;
  bg_core_[c.core] += sign * th.background;
  lc_core_[c.core] += sign * th.latency_critical;
  bg_dom_[c.domain] += sign * th.background;
  lc_dom_[c.domain] += sign * th.latency_critical;
  if (!unit_member_on(t, cpu)) units_on_[cpu] += sign;
}

void PlacementState::add(int t, int cpu) {
  total_ += add_cost(t, cpu);
  count(t, cpu, +1);
  cpu_of_[t] = cpu;
}

void PlacementState::remove(int t) {
  const int cpu = cpu_of_[t];
  cpu_of_[t] = -1;
  count(t, cpu, -1);
  total_ -= add_cost(t, cpu);
}

bool PlacementState::unit_fits(int unit, int anchor) const {
  const Unit& u = p_.units[unit];
  if (!u.group()) return can_take(u.threads[0], anchor);
  const auto& core = p_.core_cpus[anchor];
  for (std::size_t k = 0; k < u.threads.size(); ++k) {
    int cpu = p_.group_cpu(anchor, static_cast<int>(k));
    if (!p_.allowed(u.threads[k], cpu)) return false;
    if (k < core.size() && units_on_[cpu] > 0 && !p_.oversubscribe) return false;
  }
  return true;
}

double PlacementState::place_unit(int unit, int anchor) {
  const Unit& u = p_.units[unit];
  const double before = total_;
  if (!u.group()) {
    add(u.threads[0], anchor);
  } else {
    for (std::size_t k = 0; k < u.threads.size(); ++k)
      add(u.threads[k], p_.group_cpu(anchor, static_cast<int>(k)));
  }
  return total_ - before;
}

double PlacementState::lift_unit(int unit) {
  const Unit& u = p_.units[unit];
  const double before = total_;
  for (auto it = u.threads.rbegin(); it != u.threads.rend(); ++it) remove(*it);
  return before - total_;
}

int PlacementState::anchor_of(int unit) const {
  const Unit& u = p_.units[unit];
  const int cpu = cpu_of_[u.threads[0]];
  if (cpu < 0 || !u.group()) return cpu;
  return p_.machine->cpus[cpu].core;
}

}  // namespace threadmap::plan
