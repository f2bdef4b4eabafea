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

// Drops what only fits a plan with a known thread count: the per-TID taskset lines (tune
// does not know the TIDs) and OMP_NUM_THREADS (the order lists CPUs, not threads).
std::string without_plan_only_lines(const std::string& text) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size() - 1;
    std::string line = text.substr(pos, nl - pos + 1);
    pos = nl + 1;
    if (line.find("TID_OF_") != std::string::npos ||
        line.find("# each thread, once it exists") == 0 || line.find("export OMP_NUM_THREADS") == 0)
      continue;
    out += line;
  }
  return out;
}

}  // namespace

std::string reproduce_lines(const Candidate& candidate, const Topology* topology) {
  if (!candidate.launcher.empty())
    return "# the job, every rank placing its threads inside its share as tune did:\n" +
           run_line(candidate) + "\n";
  std::string out = "# threadmap (pins each thread as tune did):\n" + run_line(candidate) + "\n";
  if (candidate.order.empty()) return out;
  // The candidate's CPU order as a plan: thread i takes the i-th CPU, as the pin library does.
  plan::Plan p;
  for (std::size_t i = 0; i < candidate.order.size(); ++i) {
    plan::PlannedThread t;
    t.thread = "t" + std::to_string(i);
    t.cpus = {candidate.order[i]};
    p.assignments.push_back(t);
  }
  const std::string command = shell_join(candidate.request.command);
  for (plan::ExportFormat f : {plan::ExportFormat::taskset, plan::ExportFormat::numactl,
                               plan::ExportFormat::omp, plan::ExportFormat::slurm})
    out += with_command(without_plan_only_lines(plan::export_plan(p, f, topology)), command);
  return out;
}

}  // namespace threadmap::tune
