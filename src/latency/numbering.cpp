// Nearest partners use a 5% tolerance so that equally near partners (the other cores of a
// CCX measured at 20.1 and 20.4 ns) are listed together rather than one picked by noise.
#include "src/latency/numbering.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace threadmap::latency {

NumberingLies analyse_numbering(const Matrix& matrix, std::size_t worst_count) {
  NumberingLies out;
  const std::size_t n = matrix.size();
  for (std::size_t i = 0; i < n; ++i) {
    CpuNeighbours row;
    row.cpu = matrix.cpus[i];
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < n; ++j) {
      double v = symmetric_at(matrix, i, j);
      if (j != i && !std::isnan(v)) best = std::min(best, v);
    }
    if (!std::isfinite(best)) {
      out.cpus.push_back(row);
      continue;
    }
    row.nearest_ns = best;
    for (std::size_t j = 0; j < n; ++j) {
      double v = symmetric_at(matrix, i, j);
      if (j != i && !std::isnan(v) && v <= best * 1.05) row.nearest.push_back(matrix.cpus[j]);
    }
    std::size_t next = (i + 1) % n;
    if (next != i) {
      row.next_cpu = matrix.cpus[next];
      row.next_ns = symmetric_at(matrix, i, next);
      row.cost_ratio = best > 0 && !std::isnan(row.next_ns) ? row.next_ns / best : 0;
    }
    out.cpus.push_back(row);
  }
  out.worst = out.cpus;
  std::stable_sort(
      out.worst.begin(), out.worst.end(),
      [](const CpuNeighbours& a, const CpuNeighbours& b) { return a.cost_ratio > b.cost_ratio; });
  if (out.worst.size() > worst_count) out.worst.resize(worst_count);
  for (const CpuNeighbours& c : out.cpus) out.far_numbered += c.cost_ratio > 1.5 ? 1 : 0;
  out.lies = !out.worst.empty() && out.worst[0].cost_ratio > 1.05;
  return out;
}

}  // namespace threadmap::latency
