// threadmap tune [--candidates LIST] [--metric wall|cpu|REGEX [--higher|--lower]]
//                [--budget DURATION] [--runs N] [--thread-cache] [--json FILE]
//                [--ranks auto --launcher 'LAUNCHER ARGS'] -- CMD ARGS
// Parses, checks the output files, calls tune::run_tune_command (the candidates, the loop, the
// verdicts, the reproduce lines) and prints what it returns.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "src/cli/command.hpp"
#include "src/cli/outputs.hpp"
#include "src/os/files.hpp"
#include "src/render/tune_view.hpp"
#include "src/tune/candidates.hpp"
#include "src/tune/metric.hpp"
#include "src/tune/tune_command.hpp"

namespace threadmap::cli {
namespace {

struct TuneCliOptions {
  tune::TuneRequest request;
  std::string json_file;
  std::string keep_output;  // DIR: each candidate's first run's output, DIR/NAME.out
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

// The flag a request error is about, for the one error line.
std::string flag_of(tune::TuneField field) {
  switch (field) {
    case tune::TuneField::command:
      return "command";
    case tune::TuneField::metric:
      return "--metric";
    case tune::TuneField::direction:
      return "--higher/--lower";
    case tune::TuneField::budget:
      return "--budget";
    case tune::TuneField::ranks:
      return "--ranks";
    case tune::TuneField::launcher:
      return "--launcher";
    case tune::TuneField::candidates:
      return "--candidates";
    case tune::TuneField::none:
      break;
  }
  return "";
}

// Each candidate's first run's output, DIR/NAME.out.
Status keep_outputs(const std::string& dir, const tune::TuneResult& result) {
  for (const auto& c : result.candidates) {
    if (c.first_output.empty() && c.samples.empty() && !c.failed) continue;
    if (auto st = write_file(dir + "/" + tune::output_file_name(c.candidate.name), c.first_output);
        !st)
      return st;
  }
  return {};
}

int run_tune(TuneCliOptions& opt) {
  // The outputs first: a file that cannot be written must not cost the runs.
  Outputs out;
  out.declare("--json", &opt.json_file);
  if (auto st = out.check(); !st) return reject(st.error().with_context("tune"));
  if (!opt.keep_output.empty() && !os::is_directory(opt.keep_output))
    return fail("tune: --keep-output " + opt.keep_output + ": not an existing directory");
  const bool tty = stderr_is_tty();
  opt.request.progress = [](const tune::Progress& p) { print_progress(p, p.unit); };
  tune::TuneField field = tune::TuneField::none;
  auto report = tune::run_tune_command(opt.request, &field);
  if (tty) std::fprintf(stderr, "\r\033[K");
  if (!report) {
    const std::string flag = flag_of(field);
    Error e = (flag.empty() || flag == "command" ? report.error()
                                                 : report.error().with_context("bad " + flag))
                  .with_context("tune");
    return field == tune::TuneField::none || field == tune::TuneField::candidates ? reject(e)
                                                                                  : usage_error(e);
  }
  // The table before the files: a file that fails now still leaves what the runs found.
  if (opt.json_file != "-") print(render::tune_text(report->result, report->reproduce));
  out.set(&opt.json_file, render::tune_json(report->result, report->reproduce).dump(2) + "\n");
  int status = report->result.interrupted ? 130 : 0;
  if (auto st = out.commit(); !st) status = fail(st.error().with_context("tune"));
  if (!opt.keep_output.empty())
    if (auto st = keep_outputs(opt.keep_output, report->result); !st)
      status = fail(st.error().with_context("tune: --keep-output"));
  return status;
}

}  // namespace

void add_tune_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<TuneCliOptions>();
  tune::TuneRequest& r = opt->request;
  auto* sub = app.add_subcommand(
      "tune", "Run a program under candidate placements, interleaved, and say which wins");
  std::string names;
  for (const auto& n : tune::builtin_candidate_names()) names += (names.empty() ? "" : ", ") + n;
  sub->add_option("--candidates", r.candidates,
                  "Comma-separated candidates, any of: " + names +
                      "; default: os and every built-in that differs on this machine")
      ->check(fixed_values(tune::builtin_candidate_names(), /*comma_list=*/true))
      // Empty is not "the default set": a list that lost its names (an unset variable) says so.
      ->check(CLI::Validator(
          [names](std::string& text) -> std::string {
            if (text.find_first_not_of(", \t") != std::string::npos) return "";
            return "the list is empty: name one or more of " + names +
                   " (leave --candidates out for the default set)";
          },
          ""));
  sub->add_option("--metric", r.metric,
                  "wall (default), cpu (user+system time), or a regular expression with one "
                  "capture group around a number the program prints (with --higher/--lower)")
      ->check(fixed_values(tune::named_metrics()));
  sub->add_flag("--higher", r.higher, "With a regex metric: a higher number is better");
  sub->add_flag("--lower", r.lower, "With a regex metric: a lower number is better");
  sub->add_option("--budget", r.budget,
                  "Time for all runs (30s, 2m, ...; default 60s); binds after the first round");
  sub->add_option("--runs", r.runs,
                  "Rounds before the loop may stop (default 5, the least that can be "
                  "clear)")
      ->check(CLI::Range(1, 1000));
  sub->add_flag("--thread-cache", r.thread_cache,
                "Also try every candidate with the thread cache (NAME+cache)");
  sub->add_option("--json", opt->json_file,
                  "Also write JSON (schema threadmap.tune/1) to FILE; '-' = stdout only");
  sub->add_option("--keep-output", opt->keep_output,
                  "Write each candidate's first run's output (stdout and stderr) to DIR/NAME.out "
                  "(DIR must exist)");
  sub->add_option("--ranks", r.ranks,
                  "auto: tune the per-rank placement of a job; the --launcher runs the whole "
                  "job per candidate, each rank under `threadmap run --ranks auto`")
      ->check(fixed_values({"auto"}));
  sub->add_option("--launcher", r.launcher,
                  "With --ranks auto: the launcher and its options, one argument ('mpirun -np "
                  "4', 'srun -n 4'); split into words as a shell would");
  sub->add_option("command", r.command, "-- CMD ARGS...");
  sub->callback([&selected, opt] { selected = [opt] { return run_tune(*opt); }; });
}

}  // namespace threadmap::cli
