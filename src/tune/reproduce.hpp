// The lines that reproduce a candidate without tune: `threadmap run ...` (every part of it: the
// pinning, the memory policy, the thread cache), and where the candidate pins threads in a CPU
// order, the same CPUs in the tools that apply here (plan/export with options: the whole
// process on those CPUs with numactl where it is installed, else taskset; OpenMP's variables
// only for a program that links an OpenMP runtime; srun only where Slurm is), each keeping the
// cache and the memory policy, or left out when it cannot express them.
#pragma once

#include <string>

#include "src/tune/candidates.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::tune {

/// What the reproduce lines may use: the tools installed here and what the program links.
struct ReproduceTools {
  bool numactl = false;  ///< numactl is on PATH
  bool taskset = false;  ///< taskset is on PATH
  bool srun = false;     ///< inside a Slurm job (SLURM_JOB_ID set) with srun on PATH
  bool openmp = false;   ///< the program links an OpenMP runtime (libgomp, libomp, libiomp5)
  /// The thread cache library a line preloads for a candidate with the cache; "" when it
  /// cannot be found (then only the threadmap line keeps the cache).
  std::string cache_library;
};

/// Looks on PATH for the tools, whether this runs inside a Slurm job, reads the program's ELF
/// dependencies (the program is the command's first word, after `env NAME=VALUE...`), and finds
/// the cache library.
ReproduceTools find_reproduce_tools(const std::vector<std::string>& command);

/// Shell lines, one per tool, with '#' comments saying what each tool does and cannot do.
std::string reproduce_lines(const Candidate& candidate, const Topology* topology,
                            const ReproduceTools& tools);

}  // namespace threadmap::tune
