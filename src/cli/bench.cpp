// threadmap bench NAME [--runs N] [--quick] [--json FILE] [--pair A,B] [--latency FILE]
#include <memory>

#include "src/cli/command.hpp"
#include "src/experiments/experiments.hpp"
#include "src/experiments/latency_pairs.hpp"
#include "src/latency/matrix.hpp"
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

Result<experiments::BenchResult> run_named(const BenchCliOptions& opt, const Topology& topo,
                                           const experiments::BenchOptions& base) {
  if (opt.name == "contention") return experiments::run_contention(topo, base);
  if (opt.name == "smt") return experiments::run_smt(topo, base);
  if (opt.name == "migrate") return experiments::run_migrate(topo, base);
  if (opt.name == "spawn") {
    experiments::SpawnOptions spawn = experiments::locate_spawn_tools();
    static_cast<experiments::BenchOptions&>(spawn) = base;
    return experiments::run_spawn(topo, spawn);
  }
  experiments::PingpongOptions ping;
  static_cast<experiments::BenchOptions&>(ping) = base;
  if (!opt.pair.empty()) {
    auto pair = parse_pair(opt.pair);
    if (!pair) return pair.error();
    ping.pair = *pair;
  }
  if (!opt.latency_file.empty()) {
    auto matrix = latency::load_matrix(opt.latency_file);
    if (!matrix) return matrix.error();
    ping.latencies = experiments::latencies_from_matrix(*matrix);
    ping.latency_source = opt.latency_file;
    ping.latency_notes = experiments::matrix_mismatch_notes(*matrix, topo);
  } else if (!ping.pair) {
    // No matrix given: measure a quick one so best and worst are chosen by measurement. A
    // machine where that cannot run (one CPU) falls back to topology inside run_pingpong.
    auto measured = experiments::measure_quick_latencies(topo);
    if (measured) {
      ping.latencies = std::move(*measured);
      ping.latency_source = "quick measurement (threadmap latency --quick)";
    }
  }
  return experiments::run_pingpong(topo, ping);
}

int run_bench(const BenchCliOptions& opt) {
  if ((!opt.pair.empty() || !opt.latency_file.empty()) && opt.name != "pingpong")
    return fail("--pair and --latency apply to 'bench pingpong' only, not '" + opt.name + "'");
  auto topo = Topology::load_this_machine();
  if (!topo) return fail(topo.error());
  experiments::BenchOptions base;
  base.quick = opt.quick;
  base.runs = opt.runs > 0 ? opt.runs : (opt.quick ? 3 : 5);
  if (stderr_is_tty())
    base.progress = [](const std::string& line) { std::fprintf(stderr, "\r\033[K%s", line.c_str()); };
  auto result = run_named(opt, *topo, base);
  if (stderr_is_tty()) std::fprintf(stderr, "\r\033[K");
  if (!result) return fail(result.error());
  if (!opt.json_file.empty()) {
    Status written = write_file(opt.json_file, render::bench_json(*result).dump(2) + "\n");
    if (!written) return fail(written.error());
  }
  if (opt.json_file != "-") print(render::bench_text(*result));
  return 0;
}

}  // namespace

void add_bench_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<BenchCliOptions>();
  auto* sub = app.add_subcommand(
      "bench", "Run a seed experiment side by side on this machine (OS placement vs pinned ...)");
  sub->add_option("name", opt->name, "contention | pingpong | smt | migrate | spawn")
      ->required()
      ->check(CLI::IsMember(experiments::bench_names()));
  sub->add_option("--runs", opt->runs, "Runs per variant; the table shows the median "
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
