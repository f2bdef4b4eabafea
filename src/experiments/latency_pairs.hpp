// Turning a latency matrix into the pair list the ping-pong experiment chooses from.
#pragma once

#include <vector>

#include "src/experiments/experiments.hpp"
#include "src/latency/matrix.hpp"

namespace threadmap::experiments {

/// Every measured pair (i < j) of `matrix` with its one-way latency; NaN cells are left out.
/// The latency is the mean of both directions when the matrix is not symmetric.
std::vector<PingpongOptions::Latency> latencies_from_matrix(const latency::Matrix& matrix);

/// Measures the latencies ping-pong chooses from when the user gave no matrix: a quick
/// measurement (one pair per topology class, the class's value copied to its other pairs) of
/// the usable CPUs. Fails with the latency engine's message (e.g. fewer than two CPUs).
Result<std::vector<PingpongOptions::Latency>> measure_quick_latencies(const Topology& topo);

}  // namespace threadmap::experiments
