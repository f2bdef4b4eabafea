#include "src/latency/analysis.hpp"

#include "src/latency/ordering.hpp"

namespace threadmap::latency {

Analysis analyse(const Matrix& matrix, const Topology* topology, RowOrder row_order) {
  Analysis out;
  out.stability = matrix.stability;
  out.domains = analyse_domains(matrix, {}, topology);
  out.numbering = analyse_numbering(matrix);
  if (topology) out.comparison = compare_with_topology(out.domains, *topology);
  out.order = row_order == RowOrder::numeric ? numeric_order(matrix)
                                             : topology_order(matrix, out.domains, topology);
  return out;
}

}  // namespace threadmap::latency
