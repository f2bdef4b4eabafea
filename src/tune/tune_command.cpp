#include "src/tune/tune_command.hpp"

#include "src/tune/duration.hpp"
#include "src/tune/job_candidates.hpp"
#include "src/tune/reproduce.hpp"

namespace threadmap::tune {
namespace {

Error about(TuneField which, TuneField* field, Error error) {
  if (field) *field = which;
  return error;
}

// The launcher's words for a job (empty for a plain run), after the rules on which options go
// together. A job's launcher is named, never guessed from the command (mpirun and srun have
// dozens of options that take a value; guessing where the program starts would misplace some).
Result<std::vector<std::string>> job_launcher(const TuneRequest& request, TuneField* field) {
  if (!request.ranks.empty() && request.ranks != "auto")
    return about(TuneField::ranks, field,
                 Error::invalid("'" + request.ranks +
                                "': tune takes only 'auto' (each rank reads its place from the "
                                "launcher)"));
  if (!request.ranks.empty() && request.launcher.empty())
    return about(TuneField::ranks, field,
                 Error::invalid("a job needs the launcher that starts its ranks (e.g. "
                                "'mpirun -np 4')"));
  if (request.ranks.empty() && !request.launcher.empty())
    return about(TuneField::launcher, field,
                 Error::invalid("a launcher applies to a job only (ranks auto)"));
  if (request.launcher.empty()) return std::vector<std::string>{};
  auto words = split_words(request.launcher);
  if (!words) return about(TuneField::launcher, field, words.error());
  return *words;
}

}  // namespace

Result<TuneReport> run_tune_command(const TuneRequest& request, TuneField* field) {
  if (field) *field = TuneField::none;
  if (request.command.empty())
    return about(TuneField::command, field, Error::invalid("no command (tune -- CMD ARGS)"));
  bool direction = false;
  auto metric = parse_metric(request.metric, request.higher, request.lower, &direction);
  if (!metric)
    return about(direction ? TuneField::direction : TuneField::metric, field, metric.error());
  auto budget = parse_duration(request.budget);
  if (!budget) return about(TuneField::budget, field, budget.error());
  auto launcher = job_launcher(request, field);
  if (!launcher) return launcher.error();
  auto topology = Topology::load_this_machine();
  if (!topology) return topology.error();
  auto set = launcher->empty() ? make_candidates(request.candidates, *topology, request.command,
                                                 request.thread_cache)
                               : make_job_candidates(request.candidates, *topology, *launcher,
                                                     request.command, request.thread_cache);
  if (!set) return about(TuneField::candidates, field, set.error());
  TuneSettings settings;
  settings.budget_s = *budget;
  settings.min_rounds = request.runs;
  settings.progress = request.progress;
  auto result = run_tune(*set, *metric, settings, *topology);
  if (!result) return result.error();
  TuneReport report;
  report.result = std::move(*result);
  if (!report.result.best_is_os())
    report.reproduce = reproduce_lines(report.result.at(report.result.best)->candidate, &*topology,
                                       find_reproduce_tools(request.command));
  return report;
}

}  // namespace threadmap::tune
