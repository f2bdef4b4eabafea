// threadmap bench NAME [--runs N] [--quick] [--json FILE] [--pair A,B] [--latency FILE]
// Parses, looks the bench up in the library's table (experiments/registry), runs it, prints.
#include <memory>

#include "src/cli/command.hpp"
#include "src/cli/outputs.hpp"
#include "src/experiments/registry.hpp"
#include "src/render/bench_view.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::cli {
namespace {

struct BenchCliOptions {
  std::string name;
  int runs = 0;  // 0 = the default: 5, or 3 with --quick
  bool quick = false;
  std::string json_file;
  std::string pair;
  std::string latency_file;
};

// "3,17" -> {3, 17}; anything else is a usage error naming the text.
Result<experiments::CpuPair> parse_pair(const std::string& text) {
  auto bad = [&] { return Error::invalid("bad --pair '" + text + "': expected two CPUs, 'A,B'"); };
  auto comma = text.find(',');
  if (comma == std::string::npos) return bad();
  auto a = CpuSet::parse_list(text.substr(0, comma));
  auto b = CpuSet::parse_list(text.substr(comma + 1));
  if (!a || !b || a->count() != 1 || b->count() != 1) return bad();
  return experiments::CpuPair{a->first(), b->first()};
}

int run_bench(const BenchCliOptions& opt) {
  const experiments::BenchEntry* entry = experiments::find_bench(opt.name);
  // A wrong name, a flag the bench does not take or a malformed pair: the command line is
  // wrong (2), nothing ran.
  if (!entry) return usage_error(std::string("unknown bench '") + opt.name + "'");
  if ((!opt.pair.empty() || !opt.latency_file.empty()) && !entry->takes_pair_and_latency)
    return usage_error("--pair and --latency apply to 'bench pingpong' only, not '" + opt.name +
                       "'");
  Outputs out;
  out.declare("--json", &opt.json_file);
  // Checked before the bench runs: a typo must not cost the minutes of measuring.
  if (auto st = out.check(); !st) return reject(st.error());
  experiments::BenchRequest request;
  if (!opt.pair.empty()) {
    auto pair = parse_pair(opt.pair);
    if (!pair) return usage_error(pair.error());
    request.pair = *pair;
  }
  request.latency_file = opt.latency_file;
  request.options.quick = opt.quick;
  request.options.runs = opt.runs > 0 ? opt.runs : (opt.quick ? 3 : 5);
  if (stderr_is_tty())
    request.options.progress = [](const std::string& line) {
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
    };
  auto topo = Topology::load_this_machine();
  if (!topo) return fail(topo.error());
  auto result = experiments::run_bench(opt.name, *topo, request);
  if (stderr_is_tty()) std::fprintf(stderr, "\r\033[K");
  if (!result) return fail(result.error());
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
  sub->add_option("name", opt->name, name_help())
      ->required()
      ->check(CLI::IsMember(experiments::all_bench_names()));
  sub->add_option("--runs", opt->runs,
                  "Runs per variant; the table shows the median "
                  "(default 5, 3 with --quick)")
      ->check(CLI::Range(1, 1000));
  sub->add_flag("--quick", opt->quick, "Short mode: less work per run (a few seconds, for CI)");
  sub->add_option("--json", opt->json_file,
                  "Also write JSON (schema threadmap.bench/1) to FILE; '-' = stdout only");
  sub->add_option("--pair", opt->pair, "pingpong: measure only this pair of CPUs, 'A,B'");
  sub->add_option("--latency", opt->latency_file,
                  "pingpong: choose best/worst pairs from this latency matrix (CSV or JSON)");
  sub->callback([&selected, opt] { selected = [opt] { return run_bench(*opt); }; });
}

}  // namespace threadmap::cli
