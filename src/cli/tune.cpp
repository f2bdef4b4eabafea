// threadmap tune [--candidates LIST] [--metric wall|cpu|REGEX [--higher|--lower]]
//                [--budget DURATION] [--runs N] [--thread-cache] [--json FILE]
//                [--ranks auto --launcher 'LAUNCHER ARGS'] -- CMD ARGS
// Parses; the library builds the candidates (tune::make_candidates, or
// tune::make_job_candidates for a job under a launcher), runs the loop
// (tune::run_tune) and writes the reproduce lines; this file prints.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "src/cli/command.hpp"
#include "src/cli/outputs.hpp"
#include "src/os/files.hpp"
#include "src/render/tune_view.hpp"
#include "src/tune/candidates.hpp"
#include "src/tune/duration.hpp"
#include "src/tune/job_candidates.hpp"
#include "src/tune/metric.hpp"
#include "src/tune/reproduce.hpp"
#include "src/tune/tune_run.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::cli {
namespace {

struct TuneCliOptions {
  std::string candidates;
  std::string metric = "wall";
  bool higher = false;
  bool lower = false;
  std::string budget = "60s";
  int runs = 5;
  bool thread_cache = false;
  std::string json_file;
  std::string keep_output;  // DIR: each candidate's first run's output, DIR/NAME.out
  std::string ranks;        // --ranks auto: tune the per-rank placement of a job
  std::string launcher;     // --launcher 'mpirun -np 4': what starts the job's ranks
  std::vector<std::string> command;
};

void print_progress(const tune::Progress& p, const std::string& unit) {
  std::string line = fmt::format(
      "tune: round {} (>= {})  {}  {:.4g}{}{}  elapsed {:.1f} s, ~{:.1f} s "
      "to go",
      p.round, p.min_rounds, p.candidate, p.value, unit.empty() ? "" : " " + unit,
      p.disturbed ? " (busy)" : "", p.elapsed_s, p.estimate_s);
  if (stderr_is_tty())
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
  else
    std::fprintf(stderr, "%s\n", line.c_str());
}

int run_tune(const TuneCliOptions& opt) {
  if (opt.command.empty()) return usage_error(std::string("tune: no command (tune -- CMD ARGS)"));
  auto metric = tune::parse_metric(opt.metric, opt.higher, opt.lower);
  if (!metric) return usage_error(metric.error().with_context("tune: bad --metric"));
  auto budget = tune::parse_duration(opt.budget);
  if (!budget) return usage_error(budget.error().with_context("tune: bad --budget"));
  // A job: the launcher is named, never guessed from CMD (mpirun and srun have dozens of
  // options that take a value; guessing where the program starts would misplace some).
  std::vector<std::string> launcher;
  if (!opt.ranks.empty() && opt.ranks != "auto")
    return usage_error("tune: bad --ranks: '" + opt.ranks +
                       "': tune takes only 'auto' (each rank reads its place from the launcher)");
  if (!opt.ranks.empty() && opt.launcher.empty())
    return usage_error(std::string(
        "tune: --ranks auto needs --launcher (what starts the job, e.g. --launcher 'mpirun -np "
        "4')"));
  if (opt.ranks.empty() && !opt.launcher.empty())
    return usage_error(std::string("tune: --launcher applies to --ranks auto only"));
  if (!opt.launcher.empty()) {
    auto words = tune::split_words(opt.launcher);
    if (!words) return usage_error(words.error().with_context("tune: bad --launcher"));
    launcher = *words;
  }
  Outputs out;
  out.declare("--json", &opt.json_file);
  if (auto st = out.check(); !st) return reject(st.error().with_context("tune"));
  if (!opt.keep_output.empty() && !os::is_directory(opt.keep_output))
    return fail("tune: --keep-output " + opt.keep_output + ": not an existing directory");
  auto topo = Topology::load_this_machine();
  if (!topo) return fail(topo.error().with_context("tune"));
  auto set = launcher.empty()
                 ? tune::make_candidates(opt.candidates, *topo, opt.command, opt.thread_cache)
                 : tune::make_job_candidates(opt.candidates, *topo, launcher, opt.command,
                                             opt.thread_cache);
  if (!set) return reject(set.error().with_context("tune: bad --candidates"));
  tune::TuneSettings settings;
  settings.budget_s = *budget;
  settings.min_rounds = opt.runs;
  const std::string unit = metric->unit();
  settings.progress = [unit](const tune::Progress& p) { print_progress(p, unit); };
  auto result = tune::run_tune(*set, *metric, settings, *topo);
  if (stderr_is_tty()) std::fprintf(stderr, "\r\033[K");
  if (!result) return reject(result.error().with_context("tune"));
  std::string reproduce;
  for (const auto& c : result->candidates)
    if (c.candidate.name == result->best && result->best != "os")
      reproduce = tune::reproduce_lines(c.candidate, &*topo);
  out.set(&opt.json_file, render::tune_json(*result, reproduce).dump(2) + "\n");
  if (auto st = out.commit(); !st) return fail(st.error().with_context("tune"));
  if (!opt.keep_output.empty()) {
    for (const auto& c : result->candidates) {
      if (c.first_output.empty() && c.samples.empty() && !c.failed) continue;
      if (auto st = write_file(opt.keep_output + "/" + tune::output_file_name(c.candidate.name),
                               c.first_output);
          !st)
        return fail(st.error().with_context("tune: --keep-output"));
    }
  }
  if (opt.json_file != "-") print(render::tune_text(*result, reproduce));
  return result->interrupted ? 130 : 0;
}

}  // namespace

void add_tune_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<TuneCliOptions>();
  auto* sub = app.add_subcommand(
      "tune", "Run a program under candidate placements, interleaved, and say which wins");
  std::string names;
  for (const auto& n : tune::builtin_candidate_names()) names += (names.empty() ? "" : ", ") + n;
  sub->add_option("--candidates", opt->candidates,
                  "Comma-separated candidates, any of: " + names +
                      "; default: os and every built-in that differs on this machine")
      ->check(fixed_values(tune::builtin_candidate_names(), /*comma_list=*/true));
  sub->add_option("--metric", opt->metric,
                  "wall (default), cpu (user+system time), or a regular expression with one "
                  "capture group around a number the program prints (with --higher/--lower)")
      ->check(fixed_values(tune::named_metrics()));
  sub->add_flag("--higher", opt->higher, "With a regex metric: a higher number is better");
  sub->add_flag("--lower", opt->lower, "With a regex metric: a lower number is better");
  sub->add_option("--budget", opt->budget,
                  "Time for all runs (30s, 2m, ...; default 60s); binds after the first round");
  sub->add_option("--runs", opt->runs,
                  "Rounds before the loop may stop (default 5; 4 is the least that can be "
                  "clear)")
      ->check(CLI::Range(1, 1000));
  sub->add_flag("--thread-cache", opt->thread_cache,
                "Also try every candidate with the thread cache (NAME+cache)");
  sub->add_option("--json", opt->json_file,
                  "Also write JSON (schema threadmap.tune/1) to FILE; '-' = stdout only");
  sub->add_option("--keep-output", opt->keep_output,
                  "Write each candidate's first run's output (stdout and stderr) to DIR/NAME.out "
                  "(DIR must exist)");
  sub->add_option("--ranks", opt->ranks,
                  "auto: tune the per-rank placement of a job; the --launcher runs the whole "
                  "job per candidate, each rank under `threadmap run --ranks auto`")
      ->check(fixed_values({"auto"}));
  sub->add_option("--launcher", opt->launcher,
                  "With --ranks auto: the launcher and its options, one argument ('mpirun -np "
                  "4', 'srun -n 4'); split into words as a shell would");
  sub->add_option("command", opt->command, "-- CMD ARGS...");
  sub->callback([&selected, opt] { selected = [opt] { return run_tune(*opt); }; });
}

}  // namespace threadmap::cli
