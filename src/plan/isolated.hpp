// Isolated CPUs (the kernel's isolcpus= / nohz_full sets): CPUs the scheduler leaves alone, so a
// thread pinned there runs undisturbed. The planner prefers them when the machine has some.
#pragma once

#include <string>

#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"

namespace threadmap::plan {

/// Reads the isolated CPUs of this machine (`path` overrides the kernel's file, for tests). An
/// empty set when the file is empty or absent (no isolcpus); fails with EINVAL naming the file
/// when its content is not a CPU list.
Result<CpuSet> read_isolated_cpus(const std::string& path = "");

}  // namespace threadmap::plan
