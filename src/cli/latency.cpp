// threadmap latency [--cpus EXPR] [--method cas|two-lines] [--precision PCT] [--budget-ms N]
//                   [--quick] [--csv F] [--json F] [--png F] [--svg F] [--load F]
//                   [--topology F.xml] [--numeric-order]
// Measures (or loads) a core-to-core latency matrix, prints the heatmap and the analysis,
// writes the requested files. Parsing, calling the library and printing only.
#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "src/cli/command.hpp"
#include "src/latency/compare.hpp"
#include "src/latency/domains.hpp"
#include "src/latency/measurement.hpp"
#include "src/latency/numbering.hpp"
#include "src/latency/ordering.hpp"
#include "src/render/latency_files.hpp"
#include "src/render/latency_heatmap_text.hpp"
#include "src/render/latency_image.hpp"
#include "src/render/latency_text.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::cli {
namespace {

struct LatencyOptions {
  std::string cpus;
  std::string method = "cas";
  double precision_pct = 3;
  double budget_ms = 100;
  bool quick = false;
  std::string csv, json, png, svg, load, topology;
  bool numeric_order = false;
  bool no_recheck = false;
  std::uint64_t seed = 0;
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

// Output paths are checked before measuring, so a typo in --png does not throw away minutes of
// measurement (and no file is written when another cannot be).
Status check_output_path(const std::string& option, const std::string& path) {
  if (path.empty() || path == "-") return {};
  std::string dir = path.substr(0, path.find_last_of('/') == std::string::npos
                                       ? 0
                                       : path.find_last_of('/'));
  if (path.find('/') == std::string::npos) dir = ".";
  if (dir.empty()) dir = "/";
  if (access(dir.c_str(), W_OK) != 0) {
    return Error::from_errno(errno, option + " " + path + ": cannot write in '" + dir + "': " +
                                        std::strerror(errno));
  }
  return {};
}

std::string title_of(const latency::Matrix& m) {
  std::string who = m.cpu_model.empty() ? m.source : m.cpu_model;
  return who + ": one-way core-to-core latency (" + std::to_string(m.size()) + " CPUs)";
}

int run_latency(const LatencyOptions& opt) {
  auto method = latency::parse_method(opt.method);
  if (!method) return fail(method.error());
  const bool measuring = opt.load.empty();
  for (auto [option, path] : {std::pair<const char*, const std::string*>{"--csv", &opt.csv},
                              {"--json", &opt.json}, {"--png", &opt.png}, {"--svg", &opt.svg}}) {
    if (auto st = check_output_path(option, *path); !st) return fail(st.error());
  }
  if (!measuring && (!opt.cpus.empty() || opt.quick)) {
    return fail(std::string("--cpus and --quick apply to a measurement, not to --load"));
  }

  // The topology used for ordering and comparison: the XML when given, else this machine when
  // measuring; a loaded file without --topology is analysed from its latencies alone.
  std::optional<Topology> topology;
  std::string topology_source;
  if (!opt.topology.empty()) {
    auto t = Topology::load_xml(opt.topology);
    if (!t) return fail(t.error());
    topology = *t;
    topology_source = opt.topology;
  } else if (measuring) {
    auto t = Topology::load_this_machine();
    if (!t) return fail(t.error());
    topology = *t;
    topology_source = "hwloc, this machine";
  }

  std::optional<latency::Measurement> measurement;
  latency::Matrix matrix;
  if (measuring) {
    auto here = Topology::load_this_machine();
    if (!here) return fail(here.error());
    latency::MeasureOptions mo;
    if (!opt.cpus.empty()) {
      auto set = here->resolve(opt.cpus);
      if (!set) return fail(set.error().with_context("--cpus"));
      mo.cpus = *set;
    }
    mo.method = *method;
    mo.precision = opt.precision_pct / 100.0;
    mo.budget_ms = opt.budget_ms;
    mo.quick = opt.quick;
    mo.recheck = !opt.no_recheck;
    mo.seed = opt.seed;
    if (stderr_is_tty()) mo.progress = show_progress;
    auto run = latency::measure(mo, *here);
    if (!run) return fail(run.error());
    measurement = std::move(*run);
    matrix = measurement->matrix;
  } else {
    auto loaded = latency::load_matrix(opt.load);
    if (!loaded) return fail(loaded.error());
    matrix = std::move(*loaded);
  }

  const auto domains = latency::analyse_domains(matrix);
  const auto numbering = latency::analyse_numbering(matrix);
  std::optional<latency::TopologyComparison> comparison;
  if (topology) comparison = latency::compare_with_topology(domains, *topology);
  const auto order = opt.numeric_order
                         ? latency::numeric_order(matrix)
                         : latency::topology_order(matrix, domains,
                                                   topology ? &*topology : nullptr);

  const latency::Measurement* m = measurement ? &*measurement : nullptr;
  if (!opt.csv.empty()) {
    if (auto st = write_file(opt.csv, render::latency_csv(matrix)); !st) return fail(st.error());
  }
  if (!opt.json.empty()) {
    auto doc = render::latency_json(matrix, domains, m);
    if (comparison) {
      doc["topology_comparison"] = render::topology_comparison_json(*comparison, topology_source);
    }
    if (auto st = write_file(opt.json, doc.dump(1) + "\n"); !st) return fail(st.error());
  }
  render::HeatmapLabels labels;
  labels.title = title_of(matrix);
  labels.subtitle =
      m ? fmt::format("method {}; per pair the median of timed batches; domains outlined; "
                      "rows/columns in {} order",
                      latency::method_name(m->method),
                      opt.numeric_order ? "CPU number" : "topology")
        : fmt::format("as stored in {}; domains outlined; rows/columns in {} order",
                      matrix.source, opt.numeric_order ? "CPU number" : "topology");
  labels.domains = domains.domains;
  if (!opt.png.empty()) {
    if (auto st = render::write_heatmap_png(opt.png, matrix, order, labels); !st) {
      return fail(st.error());
    }
  }
  if (!opt.svg.empty()) {
    if (auto st = render::write_heatmap_svg(opt.svg, matrix, order, labels); !st) {
      return fail(st.error());
    }
  }
  if (opt.json == "-" || opt.csv == "-") return 0;  // the file went to stdout

  render::TextHeatmapOptions heat;
  heat.color = stdout_is_tty();
  std::string text = render::latency_provenance(matrix, m);
  text += fmt::format("rows/columns in {} order\n\n",
                      opt.numeric_order ? "CPU number"
                                        : (topology ? "topology (package, die, L3, core, CPU)"
                                                    : "latency-domain"));
  text += render::latency_heatmap_text(matrix, order, heat);
  render::LatencyTextInput in;
  in.matrix = &matrix;
  in.domains = &domains;
  in.numbering = &numbering;
  in.comparison = comparison ? &*comparison : nullptr;
  in.measurement = m;
  in.topology_source = topology_source;
  text += render::latency_analysis_text(in);
  print(text);
  return 0;
}

}  // namespace

void add_latency_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<LatencyOptions>();
  auto* sub = app.add_subcommand(
      "latency", "Measure core-to-core latency: heatmap, latency domains, numbering lies");
  sub->add_option("--cpus", opt->cpus,
                  "CPUs to measure (list, mask or hwloc-style, e.g. 0-7 or core:0-3); "
                  "default: all allowed");
  sub->add_option("--method", opt->method,
                  "cas: compare-and-swap on one line (default); two-lines: store/load on two")
      ->check(CLI::IsMember({"cas", "two-lines"}));
  sub->add_option("--precision", opt->precision_pct,
                  "Target half-width of each pair's 95% CI of the median, in % (default 3)")
      ->check(CLI::Range(0.1, 50.0));
  sub->add_option("--budget-ms", opt->budget_ms,
                  "Most time per pair and pass, in ms (default 100)")
      ->check(CLI::Range(1.0, 60000.0));
  sub->add_flag("--quick", opt->quick,
                "Measure one representative pair per topology class only (and say so)");
  sub->add_option("--csv", opt->csv, "Write the matrix as square CSV (ns)");
  sub->add_option("--json", opt->json, "Write JSON (schema threadmap.latency/1); '-' = stdout");
  sub->add_option("--png", opt->png, "Write a PNG heatmap");
  sub->add_option("--svg", opt->svg, "Write an SVG heatmap");
  sub->add_option("--load", opt->load,
                  "Analyse a saved matrix instead of measuring (our JSON/CSV or "
                  "core-to-core-latency's CSV)");
  sub->add_option("--topology", opt->topology,
                  "hwloc XML of the machine the matrix describes (ordering and comparison)");
  sub->add_flag("--numeric-order", opt->numeric_order,
                "Order heatmap rows/columns by CPU number instead of by topology");
  sub->add_flag("--no-recheck", opt->no_recheck,
                "Measure each pair once (skips the instability check; halves the time)");
  sub->add_option("--seed", opt->seed, "Seed of the pair-order shuffle (default: clock)");
  sub->callback([&selected, opt] { selected = [opt] { return run_latency(*opt); }; });
}

}  // namespace threadmap::cli
