// Sorting by a tuple of group indexes per level; lower CPU number breaks ties.
#include "src/latency/ordering.hpp"

#include <algorithm>
#include <numeric>

namespace threadmap::latency {

std::vector<std::size_t> numeric_order(const Matrix& matrix) {
  std::vector<std::size_t> order(matrix.size());
  std::iota(order.begin(), order.end(), 0);
  return order;
}

std::vector<std::size_t> topology_order(const Matrix& matrix, const DomainAnalysis& analysis,
                                        const Topology* topology) {
  const std::size_t n = matrix.size();
  std::vector<std::vector<int>> key(n);
  bool known = topology != nullptr;
  if (known) {
    for (int cpu : matrix.cpus) known = known && topology->pu(cpu) != nullptr;
  }
  for (std::size_t i = 0; i < n; ++i) {
    int cpu = matrix.cpus[i];
    if (known) {
      const PuPlace* p = topology->pu(cpu);
      key[i] = {p->package, p->die, p->l3, p->core, cpu};
    } else {
      // Coarsest level first; a group's index is the position of its lowest CPU, which keeps
      // groups in CPU order.
      for (std::size_t l = analysis.levels.size(); l-- > 0;) {
        int index = -1;
        for (std::size_t g = 0; g < analysis.levels[l].size(); ++g) {
          if (analysis.levels[l][g].contains(cpu)) index = static_cast<int>(g);
        }
        key[i].push_back(index);
      }
      key[i].push_back(cpu);
    }
  }
  std::vector<std::size_t> order = numeric_order(matrix);
  std::stable_sort(order.begin(), order.end(),
                   [&key](std::size_t a, std::size_t b) { return key[a] < key[b]; });
  return order;
}

}  // namespace threadmap::latency
