// threadmap latency [--cpus EXPR] [--method cas|two-lines] [--precision PCT] [--budget-ms N]
//                   [--quick] [--csv F] [--json F] [--png F] [--svg F] [--load F]
//                   [--topology F.xml] [--numeric-order]
// Measures (or loads) a core-to-core latency matrix, prints the heatmap and the analysis,
// writes the requested files. Parsing, the request checked (latency::latency_request), one
// library call (latency::run_latency), the views of render/latency_run_view, printing.
#include <cstdio>
#include <memory>

#include "src/cli/command.hpp"
#include "src/cli/manual_sections.hpp"
#include "src/cli/outputs.hpp"
#include "src/latency/latency_run.hpp"
#include "src/latency/matrix_files.hpp"
#include "src/render/latency_image.hpp"
#include "src/render/latency_run_view.hpp"

namespace threadmap::cli {
namespace {

// The library's options (what to measure or load) and the files this command writes.
struct LatencyCliOptions {
  latency::LatencyOptions given;
  std::string csv, json, png, svg;
  FlagTable flags;  ///< member -> flag, filled as the flags are declared
};

// Progress on stderr, overwritten in place; only called when stderr is a terminal.
void show_progress(const latency::Progress& p) {
  std::fprintf(stderr,
               "\r\x1b[Kmeasured %zu/%zu pair passes (last: CPUs %d-%d), %.1f s elapsed, "
               "ETA %.0f s",
               p.pairs_done, p.pairs_total, p.cpu_a, p.cpu_b, p.elapsed_s, p.eta_s);
  if (p.pairs_done == p.pairs_total) std::fprintf(stderr, "\r\x1b[K");
  std::fflush(stderr);
}

// The files asked for, rendered; written together by Outputs::commit.
Status render_outputs(const LatencyCliOptions& opt, const latency::LatencyRun& run, Outputs& out) {
  if (out.wanted(&opt.csv)) out.set(&opt.csv, latency::latency_csv(run.matrix));
  if (out.wanted(&opt.json)) out.set(&opt.json, render::latency_run_json(run).dump(1) + "\n");
  for (auto [path, format] : {std::pair{&opt.png, render::ImageFormat::png},
                              std::pair{&opt.svg, render::ImageFormat::svg}}) {
    if (!out.wanted(path)) continue;
    auto image = render::heatmap_image(format, run.matrix, run.analysis.order,
                                       render::latency_run_labels(run, opt.given.numeric_order));
    if (!image) return image.error();
    out.set(path, std::move(*image));
  }
  return {};
}

int run_latency(const LatencyCliOptions& opt) {
  auto request = latency::latency_request(opt.given);
  if (!request) return fail(request.error(), opt.flags);
  Outputs out;
  out.declare(opt.flags, &opt.csv);
  out.declare(opt.flags, &opt.json);
  out.declare(opt.flags, &opt.png);
  out.declare(opt.flags, &opt.svg);
  // Checked before measuring, so a typo in --png does not throw away minutes of measurement.
  if (auto st = out.check(); !st) return fail(st.error());
  if (stderr_is_tty()) request->measure.progress = show_progress;
  auto run = latency::run_latency(*request);
  if (!run) return fail(run.error(), opt.flags);
  if (auto st = render_outputs(opt, *run, out); !st) return fail(st.error());
  if (auto st = out.commit(); !st) return fail(st.error());
  if (opt.json == "-" || opt.csv == "-") return 0;  // the file went to stdout
  print(render::latency_run_text(*run, opt.given.numeric_order, stdout_is_tty()));
  return 0;
}

}  // namespace

void add_latency_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<LatencyCliOptions>();
  latency::LatencyOptions& given = opt->given;
  auto* sub = app.add_subcommand(
      "latency", "Measure core-to-core latency: heatmap, latency domains, numbering lies");
  TM_OPTION(opt->flags, sub, "--cpus", given, cpus,
            "CPUs to measure, default all allowed: " + cpu_expression_brief())
      ->check(non_empty_cpus_validator());
  TM_OPTION(opt->flags, sub, "--method", given, method,
            "cas: compare-and-swap on one line (default); two-lines: store/load on two")
      ->check(CLI::IsMember({"cas", "two-lines"}));
  TM_OPTION(opt->flags, sub, "--precision", given, precision_pct,
            "Target half-width of each pair's 95% CI of the median, in % (default 3)")
      ->check(CLI::Range(0.1, 50.0));
  TM_OPTION(opt->flags, sub, "--budget-ms", given, budget_ms,
            "Most time per pair and pass, in ms (default 100)")
      ->check(CLI::Range(1.0, 60000.0));
  TM_FLAG(opt->flags, sub, "--quick", given, quick,
          "Measure one representative pair per topology class only (and say so)");
  TM_OPTION(opt->flags, sub, "--csv", *opt, csv, "Write the matrix as square CSV (ns)");
  TM_OPTION(opt->flags, sub, "--json", *opt, json,
            "Write JSON (schema threadmap.latency/1); '-' = stdout");
  TM_OPTION(opt->flags, sub, "--png", *opt, png, "Write a PNG heatmap");
  TM_OPTION(opt->flags, sub, "--svg", *opt, svg, "Write an SVG heatmap");
  TM_OPTION(opt->flags, sub, "--load", given, load_file,
            "Analyse a saved matrix instead of measuring (our JSON/CSV or "
            "core-to-core-latency's CSV)");
  TM_OPTION(opt->flags, sub, "--topology", given, topology_file,
            "hwloc XML of the machine the matrix describes (ordering and comparison)");
  TM_FLAG(opt->flags, sub, "--numeric-order", given, numeric_order,
          "Order heatmap rows/columns by CPU number instead of by topology");
  TM_FLAG(opt->flags, sub, "--no-recheck", given, no_recheck,
          "Measure each pair once (skips the instability check; halves the time)");
  TM_OPTION(opt->flags, sub, "--seed", given, seed,
            "Seed of the pair-order shuffle (default: clock)")
      ->check(whole_number());
  sub->callback([&selected, opt] { selected = [opt] { return run_latency(*opt); }; });
}

}  // namespace threadmap::cli
