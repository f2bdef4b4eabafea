// threadmap latency [--cpus EXPR] [--method cas|two-lines] [--precision PCT] [--budget-ms N]
//                   [--quick] [--csv F] [--json F] [--png F] [--svg F] [--load F]
//                   [--topology F.xml] [--numeric-order]
// Measures (or loads) a core-to-core latency matrix, prints the heatmap and the analysis,
// writes the requested files. Parsing, the request checked (latency::latency_request), one
// library call (latency::run_latency), rendering and printing only.
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "src/cli/command.hpp"
#include "src/cli/manual_sections.hpp"
#include "src/cli/outputs.hpp"
#include "src/latency/latency_run.hpp"
#include "src/latency/matrix_files.hpp"
#include "src/render/latency_heatmap_text.hpp"
#include "src/render/latency_image.hpp"
#include "src/render/latency_text.hpp"
#include "src/render/machine_state_json.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::cli {
namespace {

// The library's options (what to measure or load) and the files this command writes.
struct LatencyCliOptions {
  latency::LatencyOptions given;
  std::string csv, json, png, svg;
};

// What each member of the latency options is called on the command line.
constexpr FlagOf kLatencyFlags[] = {
    {"cpus", "--cpus"},           {"method", "--method"},  {"precision_pct", "--precision"},
    {"budget_ms", "--budget-ms"}, {"quick", "--quick"},    {"no_recheck", "--no-recheck"},
    {"seed", "--seed"},           {"load_file", "--load"}, {"topology_file", "--topology"},
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

std::string title_of(const latency::Matrix& m) {
  std::string who = m.cpu_model.empty() ? m.source : m.cpu_model;
  return who + ": one-way core-to-core latency (" + std::to_string(m.size()) + " CPUs)";
}

// The files asked for, rendered; written together by Outputs::commit.
Status render_outputs(const LatencyCliOptions& opt, const latency::LatencyRun& run,
                      const std::optional<MachineState>& machine, Outputs& out) {
  const latency::Matrix& matrix = run.matrix;
  const latency::Measurement* m = run.measurement ? &*run.measurement : nullptr;
  if (out.wanted(&opt.csv)) out.set(&opt.csv, latency::latency_csv(matrix));
  if (out.wanted(&opt.json)) {
    auto doc = latency::latency_json(matrix, run.analysis.domains, m);
    if (run.analysis.comparison) {
      doc["topology_comparison"] =
          latency::topology_comparison_json(*run.analysis.comparison, run.topology_source);
    }
    // A loaded matrix was measured some other time: this machine's state now says nothing
    // about it.
    doc["machine_state"] = machine ? render::machine_state_json(*machine) : nlohmann::json();
    if (run.binding) doc["binding"] = render::binding_json(*run.binding);
    out.set(&opt.json, doc.dump(1) + "\n");
  }
  render::HeatmapLabels labels;
  labels.title = title_of(matrix);
  labels.subtitle =
      m ? fmt::format(
              "method {}; per pair the median of timed batches; domains outlined; "
              "rows/columns in {} order",
              latency::method_name(m->method), opt.given.numeric_order ? "CPU number" : "topology")
        : fmt::format("as stored in {}; domains outlined; rows/columns in {} order", matrix.source,
                      opt.given.numeric_order ? "CPU number" : "topology");
  labels.domains = run.analysis.domains.domains;
  for (auto [path, format] : {std::pair{&opt.png, render::ImageFormat::png},
                              std::pair{&opt.svg, render::ImageFormat::svg}}) {
    if (!out.wanted(path)) continue;
    auto image = render::heatmap_image(format, matrix, run.analysis.order, labels);
    if (!image) return image.error();
    out.set(path, std::move(*image));
  }
  return {};
}

int run_latency(const LatencyCliOptions& opt) {
  auto request = latency::latency_request(opt.given);
  if (!request) return fail(request.error(), kLatencyFlags);
  Outputs out;
  out.declare("--csv", &opt.csv);
  out.declare("--json", &opt.json);
  out.declare("--png", &opt.png);
  out.declare("--svg", &opt.svg);
  // Checked before measuring, so a typo in --png does not throw away minutes of measurement.
  if (auto st = out.check(); !st) return fail(st.error());
  if (stderr_is_tty()) request->measure.progress = show_progress;
  auto run = latency::run_latency(*request);
  if (!run) return fail(run.error(), kLatencyFlags);

  if (auto st = render_outputs(opt, *run, run->machine, out); !st) return fail(st.error());
  if (auto st = out.commit(); !st) return fail(st.error());
  if (opt.json == "-" || opt.csv == "-") return 0;  // the file went to stdout

  const latency::Measurement* m = run->measurement ? &*run->measurement : nullptr;
  render::TextHeatmapOptions heat;
  heat.color = stdout_is_tty();
  std::string text = run->binding && !run->binding->finding.empty()
                         ? "warning: " + run->binding->finding + "\n"
                         : std::string();
  // A busy machine is said in the provenance's warning, with what it means for the numbers.
  if (run->machine && !run->machine->busy()) text += "machine: " + run->machine->summary + "\n";
  text += render::latency_provenance(run->matrix, m);
  text += fmt::format(
      "rows/columns in {} order\n\n",
      opt.given.numeric_order
          ? "CPU number"
          : (run->topology ? "topology (package, die, L3, core, CPU)" : "latency-domain"));
  text += render::latency_heatmap_text(run->matrix, run->analysis.order, heat);
  render::LatencyTextInput in;
  in.matrix = &run->matrix;
  in.domains = &run->analysis.domains;
  in.numbering = &run->analysis.numbering;
  in.comparison = run->analysis.comparison ? &*run->analysis.comparison : nullptr;
  in.measurement = m;
  in.topology_source = run->topology_source;
  text += render::latency_analysis_text(in);
  print(text);
  return 0;
}

}  // namespace

void add_latency_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<LatencyCliOptions>();
  latency::LatencyOptions& given = opt->given;
  auto* sub = app.add_subcommand(
      "latency", "Measure core-to-core latency: heatmap, latency domains, numbering lies");
  sub->add_option("--cpus", given.cpus,
                  "CPUs to measure, default all allowed: " + cpu_expression_brief())
      ->check(non_empty_cpus_validator());
  sub->add_option("--method", given.method,
                  "cas: compare-and-swap on one line (default); two-lines: store/load on two")
      ->check(CLI::IsMember({"cas", "two-lines"}));
  sub->add_option("--precision", given.precision_pct,
                  "Target half-width of each pair's 95% CI of the median, in % (default 3)")
      ->check(CLI::Range(0.1, 50.0));
  sub->add_option("--budget-ms", given.budget_ms,
                  "Most time per pair and pass, in ms (default 100)")
      ->check(CLI::Range(1.0, 60000.0));
  sub->add_flag("--quick", given.quick,
                "Measure one representative pair per topology class only (and say so)");
  sub->add_option("--csv", opt->csv, "Write the matrix as square CSV (ns)");
  sub->add_option("--json", opt->json, "Write JSON (schema threadmap.latency/1); '-' = stdout");
  sub->add_option("--png", opt->png, "Write a PNG heatmap");
  sub->add_option("--svg", opt->svg, "Write an SVG heatmap");
  sub->add_option("--load", given.load_file,
                  "Analyse a saved matrix instead of measuring (our JSON/CSV or "
                  "core-to-core-latency's CSV)");
  sub->add_option("--topology", given.topology_file,
                  "hwloc XML of the machine the matrix describes (ordering and comparison)");
  sub->add_flag("--numeric-order", given.numeric_order,
                "Order heatmap rows/columns by CPU number instead of by topology");
  sub->add_flag("--no-recheck", given.no_recheck,
                "Measure each pair once (skips the instability check; halves the time)");
  sub->add_option("--seed", given.seed, "Seed of the pair-order shuffle (default: clock)")
      ->check(whole_number());
  sub->callback([&selected, opt] { selected = [opt] { return run_latency(*opt); }; });
}

}  // namespace threadmap::cli
