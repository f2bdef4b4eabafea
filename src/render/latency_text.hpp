// The text that follows the terminal heatmap: how the numbers were obtained, the latency
// domains at every level, agreement with hwloc, the "numbering lies" table, per-pair statistics
// (small runs) and the run's notes (unstable, multimodal, unconverged pairs; --quick).
#pragma once

#include <string>

#include "src/latency/compare.hpp"
#include "src/latency/domains.hpp"
#include "src/latency/matrix.hpp"
#include "src/latency/measurement.hpp"
#include "src/latency/numbering.hpp"

namespace threadmap::render {

/// Everything the analysis text shows; comparison and measurement may be null (no topology /
/// loaded from a file).
struct LatencyTextInput {
  const latency::Matrix* matrix = nullptr;
  const latency::DomainAnalysis* domains = nullptr;
  const latency::NumberingLies* numbering = nullptr;
  const latency::TopologyComparison* comparison = nullptr;
  const latency::Measurement* measurement = nullptr;
  std::string topology_source;  ///< where the compared topology came from ("this machine", file)
};

/// One line saying what the matrix numbers are and how they were obtained.
std::string latency_provenance(const latency::Matrix& matrix,
                               const latency::Measurement* measurement);

/// The analysis sections, each line ending in '\n'.
std::string latency_analysis_text(const LatencyTextInput& input);

}  // namespace threadmap::render
