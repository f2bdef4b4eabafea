#include "src/tune/tune_command.hpp"

#include "src/tune/duration.hpp"
#include "src/tune/job_candidates.hpp"
#include "src/tune/reproduce.hpp"

namespace threadmap::tune {
namespace {

// The launcher's words for a job (empty for a plain run), after the rules on which options go
// together. A job's launcher is named, never guessed from the command (mpirun and srun have
// dozens of options that take a value; guessing where the program starts would misplace some).
Result<std::vector<std::string>> job_launcher(const TuneOptions& o) {
  if (!o.ranks.empty() && o.ranks != "auto")
    return Error::bad_input("ranks", "'" + o.ranks +
                                         "': tune takes only 'auto' (each rank reads its place "
                                         "from the launcher)");
  if (!o.ranks.empty() && o.launcher.empty())
    return Error::bad_input("ranks",
                            "a job needs the launcher that starts its ranks (e.g. 'mpirun -np 4')");
  if (o.ranks.empty() && !o.launcher.empty())
    return Error::bad_input("launcher", "a launcher applies to a job only (ranks auto)");
  if (o.launcher.empty()) return std::vector<std::string>{};
  auto words = split_words(o.launcher);
  if (!words) return words.error().as_bad_input("launcher");
  return *words;
}

}  // namespace

Result<TuneCommand> tune_request(const TuneOptions& o) {
  if (o.command.empty()) return Error::bad_input("command", "no command (tune -- CMD ARGS)");
  auto metric = parse_metric(o.metric.empty() ? "wall" : o.metric, o.higher, o.lower);
  if (!metric) return metric.error();
  auto budget = parse_duration(o.budget.empty() ? "60s" : o.budget);
  if (!budget) return budget.error().as_bad_input("budget");
  auto launcher = job_launcher(o);
  if (!launcher) return launcher.error();
  TuneCommand checked;
  checked.candidates = o.candidates;
  checked.metric = std::move(*metric);
  checked.budget_s = *budget;
  checked.runs = o.runs.value_or(5);
  checked.thread_cache = o.thread_cache;
  checked.launcher = std::move(*launcher);
  checked.command = o.command;
  return checked;
}

Result<TuneReport> run_tune_command(const TuneCommand& c) {
  auto topology = Topology::load_this_machine();
  if (!topology) return topology.error();
  auto set =
      c.launcher.empty()
          ? make_candidates(c.candidates, *topology, c.command, c.thread_cache)
          : make_job_candidates(c.candidates, *topology, c.launcher, c.command, c.thread_cache);
  if (!set) return set.error();
  TuneSettings settings;
  settings.budget_s = c.budget_s;
  settings.min_rounds = c.runs;
  settings.progress = c.progress;
  auto result = run_tune(*set, c.metric, settings, *topology);
  if (!result) return result.error();
  TuneReport report;
  report.result = std::move(*result);
  if (!report.result.best_is_os())
    report.reproduce = reproduce_lines(report.result.at(report.result.best)->candidate, &*topology,
                                       find_reproduce_tools(c.command));
  return report;
}

}  // namespace threadmap::tune
