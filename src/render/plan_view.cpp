// Plan rendering (see plan_view.hpp).
#include "src/render/plan_view.hpp"

#include <fmt/format.h>

#include "src/plan/versus_plan.hpp"
#include "src/render/text_table.hpp"

namespace threadmap::render {
namespace {

double penalties(const plan::CostBreakdown& c) { return c.total() - c.communication; }

std::string rule_breaks(const plan::CostBreakdown& c) {
  std::vector<std::string> parts;
  if (c.compute_smt_pairs)
    parts.push_back(fmt::format("{} compute pairs on one core", c.compute_smt_pairs));
  if (c.exclusive_conflicts)
    parts.push_back(fmt::format("{} on exclusive cores", c.exclusive_conflicts));
  if (c.oversubscribed_threads)
    parts.push_back(fmt::format("{} sharing a CPU", c.oversubscribed_threads));
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : ", ") + part;
  return out.empty() ? "none" : out;
}

std::string cpu_list(const CpuSet& cpus) {
  std::string out;
  for (int cpu : cpus.to_vector()) out += (out.empty() ? "" : ",") + std::to_string(cpu);
  return out;
}

std::string solver_line(const plan::Plan& p) {
  std::string how = p.proven_optimal    ? "proven optimal"
                    : p.stopped_by_time ? "best found before the time limit"
                                        : "heuristic, not proven optimal";
  std::string work = p.passes > 0
                         ? fmt::format("{} passes, {} moves tried", p.passes, p.search_nodes)
                         : fmt::format("{} search nodes", p.search_nodes);
  return fmt::format("{} ({}; {}; {:.1f} ms wall, one run)", p.solver, how, work, p.solve_ms);
}

}  // namespace

std::string plan_text(const plan::Plan& p) {
  std::string out;
  out += fmt::format("plan for {} on CPUs {}\n", p.source, p.candidates.to_list());
  out += fmt::format("model:  {}\n", p.model);
  out += fmt::format("solver: {}\n", solver_line(p));
  out += fmt::format("kinds:  {}\n", p.kinds_note);
  for (const std::string& note : p.notes) out += "note:   " + note + "\n";
  out += "\n";
  TextTable threads({"thread", "cpu>", "why"});
  for (const auto& a : p.assignments) threads.add_row({a.thread, cpu_list(a.cpus), a.why});
  out += threads.str();
  out +=
      "\ncost = sum of edge weight x one-way latency (ns) + penalties (ns-equivalents), lower is "
      "better\n";
  out +=
      "rule breaks = compute threads sharing a core, threads on an exclusive thread's core, "
      "threads\n"
      "sharing a CPU (some are forced when threads outnumber cores or CPUs)\n";
  TextTable costs(
      {"placement", "communication>", "penalties>", "total>", "vs plan>", "rule breaks"});
  auto row = [&](const std::string& name, const plan::CostBreakdown& c) {
    const plan::VersusPlan versus = plan::versus_plan(c, p.cost);
    std::string ratio = versus.kind == plan::VersusPlan::Kind::infeasible ? "infeasible"
                        : versus.kind == plan::VersusPlan::Kind::ratio
                            ? fmt::format("{:.2f}x", versus.ratio)
                        : versus.kind == plan::VersusPlan::Kind::worse ? "worse"
                                                                       : "same";
    costs.add_row({name, fmt::format("{:.1f}", c.communication),
                   fmt::format("{:.1f}", penalties(c)), fmt::format("{:.1f}", c.total()), ratio,
                   rule_breaks(c)});
  };
  row("plan", p.cost);
  bool any_infeasible = false;
  for (const auto& [name, cost] : p.baselines) {
    row(name, cost);
    any_infeasible = any_infeasible || cost.rule_breaks() > p.cost.rule_breaks();
  }
  out += costs.str();
  if (any_infeasible)
    out +=
        "infeasible = breaks more rules than the plan (e.g. compute threads on SMT siblings): its "
        "total does not count that, so it is not comparable\n";
  return out;
}

}  // namespace threadmap::render
