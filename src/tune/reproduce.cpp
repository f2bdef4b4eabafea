#include "src/tune/reproduce.hpp"

#include "src/plan/export.hpp"

namespace threadmap::tune {
namespace {

std::string with_command(std::string text, const std::string& command) {
  const std::string placeholder = "COMMAND";
  for (std::size_t pos = text.find(placeholder); pos != std::string::npos;
       pos = text.find(placeholder, pos + command.size()))
    text.replace(pos, placeholder.size(), command);
  return text;
}

}  // namespace

std::string reproduce_lines(const Candidate& candidate, const Topology* topology) {
  std::string out = "# threadmap (pins each thread as tune did):\n" + run_line(candidate) + "\n";
  if (candidate.order.empty()) return out;
  // The candidate's CPU order as a plan: thread i takes the i-th CPU, as the pin library does.
  plan::Plan p;
  for (std::size_t i = 0; i < candidate.order.size(); ++i) {
    plan::PlannedThread t;
    t.name = "t" + std::to_string(i);
    t.cpus = {candidate.order[i]};
    p.assignments.push_back(t);
  }
  const std::string command = shell_join(candidate.request.command);
  for (plan::ExportFormat f : {plan::ExportFormat::taskset, plan::ExportFormat::numactl,
                               plan::ExportFormat::omp, plan::ExportFormat::slurm})
    out += with_command(plan::export_plan(p, f, topology), command);
  return out;
}

}  // namespace threadmap::tune
