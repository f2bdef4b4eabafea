// threadmap tune [--candidates LIST] [--metric wall|cpu|REGEX [--higher|--lower]]
//                [--budget DURATION] [--runs N] [--thread-cache] [--json FILE]
//                [--ranks auto --launcher 'LAUNCHER ARGS'] -- CMD ARGS
// Parses into tune::TuneOptions; the library checks them (tune::tune_request) and runs the
// command (tune::run_tune_command: the candidates, the loop, the verdicts, the reproduce lines);
// this file checks the output files first and prints what comes back.
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

// `tune` as given, the files it writes, and its table from member to flag.
struct TuneCli {
  tune::TuneOptions given;
  std::string json_file;
  std::string keep_output;  // DIR: each candidate's first run's output, DIR/NAME.out
  FlagTable flags;
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

int run_tune(const TuneCli& cli) {
  auto command = tune::tune_request(cli.given);
  if (!command) return fail(command.error(), cli.flags);
  // The outputs first: a file that cannot be written must not cost the runs.
  Outputs out;
  out.declare(cli.flags, &cli.json_file);
  if (auto st = out.check(); !st) return fail(st.error(), cli.flags);
  if (!cli.keep_output.empty() && !os::is_directory(cli.keep_output))
    return fail(Error::invalid("'" + cli.keep_output + "' is not an existing directory")
                    .about("keep_output"),
                cli.flags);
  const bool tty = stderr_is_tty();
  command->progress = [](const tune::Progress& p) { print_progress(p, p.unit); };
  auto report = tune::run_tune_command(*command);
  if (tty) std::fprintf(stderr, "\r\033[K");
  if (!report) return fail(report.error(), cli.flags);
  // The table before the files: a file that fails now still leaves what the runs found.
  if (cli.json_file != "-") print(render::tune_text(report->result, report->reproduce));
  out.set(&cli.json_file, render::tune_json(report->result, report->reproduce).dump(2) + "\n");
  int status = report->result.interrupted ? 130 : 0;
  if (auto st = out.commit(); !st) status = fail(st.error(), cli.flags);
  if (!cli.keep_output.empty())
    if (auto st = keep_outputs(cli.keep_output, report->result); !st)
      status = fail(st.error().about("keep_output"), cli.flags);
  return status;
}

}  // namespace

void add_tune_command(CLI::App& app, Runner& selected) {
  auto cli = std::make_shared<TuneCli>();
  tune::TuneOptions& o = cli->given;
  FlagTable& flags = cli->flags;
  auto* sub = app.add_subcommand(
      "tune", "Run a program under candidate placements, interleaved, and say which wins");
  std::string names;
  for (const auto& n : tune::builtin_candidate_names()) names += (names.empty() ? "" : ", ") + n;
  TM_OPTION(flags, sub, "--candidates", o, candidates,
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
  TM_OPTION(flags, sub, "--metric", o, metric,
            "wall (default), cpu (user+system time), or a regular expression with one "
            "capture group around a number the program prints (with --higher/--lower)")
      ->check(fixed_values(tune::named_metrics()));
  TM_FLAG(flags, sub, "--higher", o, higher, "With a regex metric: a higher number is better");
  TM_FLAG(flags, sub, "--lower", o, lower, "With a regex metric: a lower number is better");
  TM_OPTION(flags, sub, "--budget", o, budget,
            "Time for all runs (30s, 2m, ...; default 60s); binds after the first round");
  TM_OPTION(flags, sub, "--runs", o, runs,
            "Rounds before the loop may stop (default 5, the least that can be clear)")
      ->check(CLI::Range(1, 1000));
  TM_FLAG(flags, sub, "--thread-cache", o, thread_cache,
          "Also try every candidate with the thread cache (NAME+cache)");
  TM_OPTION(flags, sub, "--json", *cli, json_file,
            "Also write JSON (schema threadmap.tune/1) to FILE; '-' = stdout only");
  TM_OPTION(flags, sub, "--keep-output", *cli, keep_output,
            "Write each candidate's first run's output (stdout and stderr) to DIR/NAME.out "
            "(DIR must exist)");
  TM_OPTION(flags, sub, "--ranks", o, ranks,
            "auto: tune the per-rank placement of a job; the --launcher runs the whole "
            "job per candidate, each rank under `threadmap run --ranks auto`")
      ->check(fixed_values({"auto"}));
  TM_OPTION(flags, sub, "--launcher", o, launcher,
            "With --ranks auto: the launcher and its options, one argument ('mpirun -np "
            "4', 'srun -n 4'); split into words as a shell would");
  TM_OPTION(flags, sub, "command", o, command, "-- CMD ARGS...");
  sub->callback([&selected, cli] { selected = [cli] { return run_tune(*cli); }; });
}

}  // namespace threadmap::cli
