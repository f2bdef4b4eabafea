// The "why" column of a plan: for each thread, the edge or trait that decided its CPU, in words.
#pragma once

#include <string>
#include <vector>

#include "src/plan/problem.hpp"

namespace threadmap::plan {

/// One short reason per thread for the assignment `cpu_of` ("edge with consumer (weight 10):
/// SMT siblings, 10.0 ns"; "compute: core to itself"; "background: E-core, away from ...").
std::vector<std::string> explain(const Problem& problem, const std::vector<int>& cpu_of);

}  // namespace threadmap::plan
