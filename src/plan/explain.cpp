// Explaining each thread's CPU from the cost model's own terms, so the reason printed is the
// one the solver optimised, not a story told afterwards.
#include "src/plan/explain.hpp"

#include <fmt/format.h>

namespace threadmap::plan {

std::vector<std::string> explain(const Problem& p, const std::vector<int>& cpu_of) {
  const MachineModel& m = *p.machine;
  std::vector<std::string> out(p.threads.size());
  std::vector<int> compute_on_core(m.core_count, 0), threads_on_core(m.core_count, 0);
  for (std::size_t t = 0; t < p.threads.size(); ++t) {
    compute_on_core[m.cpus[cpu_of[t]].core] += p.threads[t].compute;
    threads_on_core[m.cpus[cpu_of[t]].core] += 1;
  }
  for (std::size_t t = 0; t < p.threads.size(); ++t) {
    const ProblemThread& th = p.threads[t];
    const int cpu = cpu_of[t];
    const PlanCpu& c = m.cpus[cpu];
    std::vector<std::string> parts;
    const Unit& unit = p.units[th.unit];
    if (unit.group()) {
      const int other = unit.threads[0] == static_cast<int>(t) ? unit.threads[1] : unit.threads[0];
      parts.push_back(fmt::format("share-core-with {}: {}", p.threads[other].name,
                                  m.relation(cpu, cpu_of[other])));
    }
    int heaviest = -1;
    double weight = 0;
    for (const auto& [v, w] : th.neighbours)
      if (w > weight || (w == weight && heaviest >= 0 && v < heaviest)) heaviest = v, weight = w;
    if (heaviest >= 0) {
      const double ns = m.latency(cpu, cpu_of[heaviest]);
      std::string more = th.neighbours.size() > 1
                             ? fmt::format(" (+{} more)", th.neighbours.size() - 1)
                             : std::string();
      parts.push_back(fmt::format("talks to {}{} (weight {:g}): {} ({}), {:.1f} ns {}",
                                  p.threads[heaviest].name, more, weight,
                                  m.relation(cpu, cpu_of[heaviest]),
                                  m.numa_known ? "from the topology" : "inferred from the matrix",
                                  ns, m.measured ? "measured" : "modelled"));
    }
    if (th.compute)
      parts.push_back(compute_on_core[c.core] > 1 ? "compute: shares its core (no free core left)"
                                                  : "compute: no other compute thread on its core");
    if (th.exclusive)
      parts.push_back(threads_on_core[c.core] > 1 ? "exclusive: core shared (no free core left)"
                                                  : "exclusive: whole core");
    if (th.latency_critical && heaviest < 0) parts.push_back("latency-critical");
    if (th.background)
      parts.push_back(std::string("background") +
                      (m.has_efficiency ? (c.efficiency ? ": E-core" : ": no E-core free") : "") +
                      ", away from latency-critical threads");
    else if (m.has_efficiency)
      parts.push_back(c.efficiency ? "E-core (no P-core free)" : "P-core");
    if (th.memory_node >= 0) {
      if (!m.numa_known || c.numa < 0)
        parts.push_back(
            fmt::format("memory node {}: NUMA unknown: no topology given", th.memory_node));
      else if (c.numa == th.memory_node)
        parts.push_back(
            fmt::format("near its memory (node {}, from the topology)", th.memory_node));
      else
        parts.push_back(fmt::format("memory on node {}, runs on node {} (from the topology)",
                                    th.memory_node, c.numa));
    }
    if (m.has_isolated && c.isolated) parts.push_back("isolated CPU");
    if (parts.empty()) parts.push_back("no edges or traits: any free CPU");
    std::string joined;
    for (const std::string& part : parts) joined += (joined.empty() ? "" : "; ") + part;
    out[t] = joined;
  }
  return out;
}

}  // namespace threadmap::plan
