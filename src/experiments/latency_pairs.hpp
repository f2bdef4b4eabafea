// Turning a latency matrix into the pair list the ping-pong experiment chooses from.
#pragma once

#include <vector>

#include "src/experiments/experiments.hpp"
#include "src/latency/matrix.hpp"

namespace threadmap::experiments {

/// Every measured pair (i < j) of `matrix` with its one-way latency; NaN cells are left out.
/// The latency is the mean of both directions when the matrix is not symmetric.
std::vector<PingpongOptions::Latency> latencies_from_matrix(const latency::Matrix& matrix);

/// Why `matrix` may not describe the machine of `topo` (its CPUs differ from the machine's, or
/// it names another CPU model); empty when nothing suggests so. Pairs chosen from a matrix of
/// another machine are chosen by someone else's numbers.
std::vector<std::string> matrix_mismatch_notes(const latency::Matrix& matrix,
                                               const Topology& topo);

}  // namespace threadmap::experiments
