// Whether a latency matrix (measured here, or loaded from a file) describes this machine: a
// matrix of another machine gives someone else's numbers, so every user of a loaded matrix
// (the report, the ping-pong bench) says so.
#pragma once

#include <string>
#include <vector>

#include "src/latency/matrix.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::latency {

/// Why `matrix` may not describe the machine of `topo` (its CPUs differ from the machine's, or
/// it names another CPU model); empty when nothing suggests so. Pairs chosen from a matrix of
/// another machine are chosen by someone else's numbers.
std::vector<std::string> matrix_mismatch_notes(const Matrix& matrix, const Topology& topo);

}  // namespace threadmap::latency
