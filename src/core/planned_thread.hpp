// One entry of a placement plan as the commands that apply and verify it use it: the
// "assignments" of a threadmap.plan/1 file (read by apply/plan_file), matched to the threads
// `run` pins and `watch` checks. One type for both, so a plan read once serves both.
// (The planner's own output, plan::PlannedThread, carries the reason for each choice and is
// written to that file by apply/plan_file, beside the reader.)
#pragma once

#include <string>

#include "threadmap/cpuset.hpp"

namespace threadmap {

struct PlannedThread {
  std::string thread;    ///< name from the workload spec ("main" = the main thread)
  CpuSet cpus;           ///< the CPUs it should run on
  int memory_node = -1;  ///< OS NUMA node its memory should be on, -1 = none stated
};

}  // namespace threadmap
