#include "src/experiments/latency_pairs.hpp"

#include <cmath>

#include "src/latency/measurement.hpp"

namespace threadmap::experiments {

std::vector<PingpongOptions::Latency> latencies_from_matrix(const latency::Matrix& matrix) {
  std::vector<PingpongOptions::Latency> out;
  for (std::size_t i = 0; i < matrix.size(); ++i) {
    for (std::size_t j = i + 1; j < matrix.size(); ++j) {
      const double a = matrix.at(i, j), b = matrix.at(j, i);
      double ns = std::isnan(a) ? b : std::isnan(b) ? a : (a + b) / 2;
      if (std::isnan(ns)) continue;
      out.push_back({matrix.cpus[i], matrix.cpus[j], ns});
    }
  }
  return out;
}

Result<std::vector<PingpongOptions::Latency>> measure_quick_latencies(const Topology& topo) {
  Result<CpuSet> usable = usable_cpus(topo);
  if (!usable) return usable.error();
  latency::MeasureOptions options;
  options.cpus = *usable;
  options.quick = true;
  options.budget_ms = 50;
  Result<latency::Measurement> run = latency::measure(options, topo);
  if (!run) return run.error();
  return latencies_from_matrix(run->matrix);
}

}  // namespace threadmap::experiments
