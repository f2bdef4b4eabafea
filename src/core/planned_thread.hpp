// One entry of a placement plan: what the planner produces (plan::Plan's assignments, with the
// reason for each choice), what plan/plan_file writes as the "assignments" of a
// threadmap.plan/1 file and reads back, and what `run` pins and `watch` checks. One type for the
// whole path, so a plan made, written, read and applied is the same value throughout.
#pragma once

#include <string>

#include "threadmap/cpuset.hpp"

namespace threadmap {

struct PlannedThread {
  std::string thread;    ///< name from the workload spec ("main" = the main thread)
  CpuSet cpus;           ///< the CPUs it should run on (OS numbers; the planner gives one)
  std::string why{};     ///< which edge or trait put it there; empty when read from a file
                         ///< ({}: entries written {thread, cpus} need no -Wextra warning)
  int memory_node = -1;  ///< OS NUMA node its memory should be on, -1 = none stated
};

}  // namespace threadmap
