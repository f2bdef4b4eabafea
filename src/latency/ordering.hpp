// The order in which a heatmap lists CPUs. By topology (package, L3, core, SMT sibling) the
// blocks of the matrix line up with the hardware and domains appear as squares on the diagonal;
// plain numeric order shows what the numbering hides.
#pragma once

#include <vector>

#include "src/latency/domains.hpp"
#include "src/latency/matrix.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::latency {

/// Matrix row indexes in display order.
///  - topology given and knowing every CPU: by package, die, L3, core, then CPU number;
///  - otherwise: by the latency levels (coarsest first), so inferred domains and SMT siblings
///    are adjacent, then CPU number.
std::vector<std::size_t> topology_order(const Matrix& matrix, const DomainAnalysis& analysis,
                                        const Topology* topology);

/// Matrix row indexes in CPU number order (0, 1, 2, ...).
std::vector<std::size_t> numeric_order(const Matrix& matrix);

}  // namespace threadmap::latency
