// threadmap bench NAME [--runs N] [--quick] [--json FILE] [--pair A,B] [--latency FILE]
// Parses; the library checks the options (experiments::bench_request, the bench looked up in its
// table) and runs the bench (experiments::run_bench_command); this file prints.
#include <cstdio>
#include <memory>

#include "src/cli/command.hpp"
#include "src/cli/outputs.hpp"
#include "src/experiments/bench_command.hpp"
#include "src/render/bench_view.hpp"

namespace threadmap::cli {
namespace {

struct BenchCliOptions {
  experiments::BenchCommandOptions given;
  std::string json_file;
  FlagTable flags;  ///< member -> flag, filled as the flags are declared
};

int run_bench(const BenchCliOptions& opt) {
  auto command = experiments::bench_request(opt.given);
  if (!command) return fail(command.error(), opt.flags);
  Outputs out;
  out.declare(opt.flags, &opt.json_file);
  // Checked before the bench runs: a typo must not cost the minutes of measuring.
  if (auto st = out.check(); !st) return fail(st.error());
  if (stderr_is_tty())
    command->request.options.progress = [](const std::string& line) {
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
    };
  auto result = experiments::run_bench_command(*command);
  if (stderr_is_tty()) std::fprintf(stderr, "\r\033[K");
  if (!result) return fail(result.error(), opt.flags);
  out.set(&opt.json_file, render::bench_json(*result).dump(2) + "\n");
  if (auto st = out.commit(); !st) return fail(st.error());
  if (opt.json_file != "-") print(render::bench_text(*result));
  return 0;
}

// "contention | pingpong | ..." for --help, from the table.
std::string name_help() {
  std::string names;
  for (const std::string& name : experiments::all_bench_names())
    names += (names.empty() ? "" : " | ") + name;
  return names;
}

}  // namespace

void add_bench_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<BenchCliOptions>();
  auto* sub = app.add_subcommand(
      "bench", "Run a seed experiment side by side on this machine (OS placement vs pinned ...)");
  TM_OPTION(opt->flags, sub, "name", opt->given, name, name_help())
      ->required()
      ->check(CLI::IsMember(experiments::all_bench_names()));
  TM_OPTION(opt->flags, sub, "--runs", opt->given, runs,
            "Runs per variant; the table shows the median "
            "(default 5, 3 with --quick)")
      ->check(CLI::Range(1, 1000));
  TM_FLAG(opt->flags, sub, "--quick", opt->given, quick,
          "Short mode: less work per run (a few seconds, for CI)");
  TM_OPTION(opt->flags, sub, "--json", *opt, json_file,
            "Also write JSON (schema threadmap.bench/1) to FILE; '-' = stdout only");
  TM_OPTION(opt->flags, sub, "--pair", opt->given, pair,
            "pingpong: measure only this pair of CPUs, 'A,B'");
  TM_OPTION(opt->flags, sub, "--latency", opt->given, latency_file,
            "pingpong: choose best/worst pairs from this latency matrix (CSV or JSON)");
  sub->callback([&selected, opt] { selected = [opt] { return run_bench(*opt); }; });
}

}  // namespace threadmap::cli
