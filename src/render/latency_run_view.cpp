#include "src/render/latency_run_view.hpp"

#include <fmt/format.h>

#include "src/latency/matrix_files.hpp"
#include "src/render/latency_heatmap_text.hpp"
#include "src/render/latency_text.hpp"
#include "src/render/machine_state_json.hpp"

namespace threadmap::render {
namespace {

const latency::Measurement* measurement_of(const latency::LatencyRun& run) {
  return run.measurement ? &*run.measurement : nullptr;
}

const char* order_name(const latency::LatencyRun& run, bool numeric_order) {
  if (numeric_order) return "CPU number";
  return run.topology ? "topology (package, die, L3, core, CPU)" : "latency-domain";
}

}  // namespace

nlohmann::json latency_run_json(const latency::LatencyRun& run) {
  auto doc = latency::latency_json(run.matrix, run.analysis.domains, measurement_of(run));
  if (run.analysis.comparison)
    doc["topology_comparison"] =
        latency::topology_comparison_json(*run.analysis.comparison, run.topology_source);
  // A loaded matrix was measured some other time: this machine's state now says nothing
  // about it.
  doc["machine_state"] = run.machine ? machine_state_json(*run.machine) : nlohmann::json();
  if (run.binding) doc["binding"] = binding_json(*run.binding);
  return doc;
}

HeatmapLabels latency_run_labels(const latency::LatencyRun& run, bool numeric_order) {
  const latency::Matrix& m = run.matrix;
  const latency::Measurement* measured = measurement_of(run);
  const char* order = numeric_order ? "CPU number" : "topology";
  HeatmapLabels labels;
  labels.title = (m.cpu_model.empty() ? m.source : m.cpu_model) +
                 ": one-way core-to-core latency (" + std::to_string(m.size()) + " CPUs)";
  labels.subtitle = measured
                        ? fmt::format(
                              "method {}; per pair the median of timed batches; domains outlined; "
                              "rows/columns in {} order",
                              latency::method_name(measured->method), order)
                        : fmt::format("as stored in {}; domains outlined; rows/columns in {} order",
                                      m.source, order);
  labels.domains = run.analysis.domains.domains;
  return labels;
}

std::string latency_run_text(const latency::LatencyRun& run, bool numeric_order, bool color) {
  std::string text = run.binding && !run.binding->finding.empty()
                         ? "warning: " + run.binding->finding + "\n"
                         : std::string();
  // A busy machine is said in the provenance's warning, with what it means for the numbers.
  if (run.machine && !run.machine->busy()) text += "machine: " + run.machine->summary + "\n";
  text += latency_provenance(run.matrix, measurement_of(run));
  text += fmt::format("rows/columns in {} order\n\n", order_name(run, numeric_order));
  TextHeatmapOptions heat;
  heat.color = color;
  text += latency_heatmap_text(run.matrix, run.analysis.order, heat);
  LatencyTextInput in;
  in.matrix = &run.matrix;
  in.domains = &run.analysis.domains;
  in.numbering = &run.analysis.numbering;
  in.comparison = run.analysis.comparison ? &*run.analysis.comparison : nullptr;
  in.measurement = measurement_of(run);
  in.topology_source = run.topology_source;
  return text + latency_analysis_text(in);
}

}  // namespace threadmap::render
