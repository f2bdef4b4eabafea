// "Numbering lies": how far each CPU's numeric neighbours are from its truly nearest partners.
// Users (and naive placement: taskset -c 0,1) pick thread pairs by CPU number; on chiplet and
// multi-socket parts, and wherever SMT siblings are numbered i + N/2, that choice can cost
// several times the latency of the best partner.
#pragma once

#include <cstddef>
#include <vector>

#include "src/latency/matrix.hpp"

namespace threadmap::latency {

/// One CPU's nearest partners versus its numeric neighbours.
struct CpuNeighbours {
  int cpu = -1;
  std::vector<int> nearest;  ///< CPUs within 5% of the lowest latency from `cpu`
  double nearest_ns = 0;     ///< that lowest one-way latency
  int next_cpu = -1;         ///< the next CPU number in the matrix (wraps to the first); -1 if none
  double next_ns = 0;        ///< latency to next_cpu
  double cost_ratio = 0;     ///< next_ns / nearest_ns: what choosing by number costs (1 = nothing)
};

/// The whole table plus the worst cases.
struct NumberingLies {
  std::vector<CpuNeighbours> cpus;   ///< one per matrix CPU, in CPU order
  std::vector<CpuNeighbours> worst;  ///< highest cost_ratio first (ties: lower CPU first)
  /// CPUs whose next CPU number is more than 1.5x farther than their nearest partner.
  std::size_t far_numbered = 0;
  /// The worst CPU's next number costs more than 5% over its nearest partner (the tolerance
  /// `nearest` uses): placing by number misleads here.
  bool lies = false;
};

/// Analyses the matrix (symmetric latencies; NaN cells ignored). `worst_count` bounds `worst`.
NumberingLies analyse_numbering(const Matrix& matrix, std::size_t worst_count = 10);

}  // namespace threadmap::latency
