// The lines that reproduce a candidate without tune: `threadmap run ...`, and where the
// candidate pins threads in a CPU order, the same order in the other tools' knobs (plan/export:
// taskset, numactl, OMP_PLACES, Slurm), with the user's command in place of COMMAND.
#pragma once

#include <string>

#include "src/tune/candidates.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::tune {

/// Shell lines, one per tool, with '#' comments saying what each tool can and cannot express.
std::string reproduce_lines(const Candidate& candidate, const Topology* topology);

}  // namespace threadmap::tune
