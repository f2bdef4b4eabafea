// A whole `threadmap latency` run shown: its JSON document, its heatmap's labels and the text
// the command prints (provenance, heatmap, analysis), drawn from latency::LatencyRun. The CLI
// parses, calls latency::run_latency, and hands the run here.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "src/latency/latency_run.hpp"
#include "src/render/latency_image.hpp"

namespace threadmap::render {

/// The threadmap.latency/1 document of `run`: the matrix, its domains, the measurement, the
/// topology comparison, this machine's state (null for a loaded matrix, measured some other
/// time) and the process's binding.
nlohmann::json latency_run_json(const latency::LatencyRun& run);

/// The heatmap picture's title, subtitle and outlined domains; `numeric_order`: rows and
/// columns in CPU-number order instead of the topology's.
HeatmapLabels latency_run_labels(const latency::LatencyRun& run, bool numeric_order);

/// What `threadmap latency` prints: the binding warning, the machine's state when quiet, the
/// provenance, the order, the heatmap (`color`: ANSI colors) and the analysis.
std::string latency_run_text(const latency::LatencyRun& run, bool numeric_order, bool color);

}  // namespace threadmap::render
