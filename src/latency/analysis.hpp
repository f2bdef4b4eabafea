// What a latency matrix says, in one call: latency domains, numbering lies, agreement with a
// topology and the row order of the heatmap. `threadmap latency` and the machine report both
// analyse through here, so the two can never read the same matrix differently.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "src/latency/compare.hpp"
#include "src/latency/domains.hpp"
#include "src/latency/matrix.hpp"
#include "src/latency/numbering.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::latency {

/// How the heatmap orders its rows and columns.
enum class RowOrder {
  topology,  ///< package, die, L3, core, CPU when a topology is given; else by latency domain
  numeric,   ///< ascending CPU number
};

/// Everything derived from one matrix.
struct Analysis {
  Stability stability;      ///< the matrix's stability (stability.state: stable/unstable/unknown)
  DomainAnalysis domains;   ///< latency domains at every level
  NumberingLies numbering;  ///< each CPU's nearest partners vs its neighbours
  std::optional<TopologyComparison> comparison;  ///< vs the topology; absent without one
  std::vector<std::size_t> order;                ///< heatmap row order (indexes into the matrix)
};

/// Analyses `matrix`. `topology` (may be null) is the machine the matrix describes: it is
/// compared with the latency domains and orders the rows; pass null for a matrix of another
/// machine, which is then analysed from its latencies alone. Never fails: an empty or
/// unmeasured matrix gives empty domains and an identity order.
Analysis analyse(const Matrix& matrix, const Topology* topology,
                 RowOrder row_order = RowOrder::topology);

}  // namespace threadmap::latency
