// Programs no preload library can load into: an ELF without PT_INTERP (plain Go, static C,
// static-pie) runs without ld.so, so LD_PRELOAD is never read. `run` (and tune's candidates,
// through it) then place the whole process instead, as taskset and numactl do, and say so;
// `watch` says so. The ELF reading is os::find_executable; the decision is here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/apply/memory_policy.hpp"
#include "threadmap/cpuset.hpp"

namespace threadmap::apply {

/// Whether ld.so runs first in what `command` starts (and so LD_PRELOAD loads).
struct PreloadReach {
  bool reaches = true;  ///< dynamic, or unknown (not ours to refuse: the kernel decides)
  std::string program;  ///< the file that would run the threads (the interpreter for a script)
  std::string why;      ///< when it does not: "is statically linked (no PT_INTERP: ...)"
};

/// Finds `command` as execvp does and reads its ELF program headers (a script: its #!
/// interpreter's). A command that cannot be found or read reaches (the launcher reports a
/// missing program itself, with the shell's 127/126).
PreloadReach preload_reach(const std::string& command);

/// What `run` asked for, in the terms a whole process can still get.
struct WholeProcessRequest {
  CpuSet cpus;                         ///< every CPU the rules name (main, slots, cycle, names)
  std::optional<MemoryPolicy> memory;  ///< --mem
  bool per_thread_memory = false;      ///< a plan's per-thread memory nodes
  bool thread_cache = false;           ///< --thread-cache
};

/// The placement a program the preloads cannot reach gets, and the line that says so.
struct WholeProcessPlacement {
  std::vector<int> cpus;          ///< the process's CPUs (taskset); empty: as it was started
  int memory_mode = -1;           ///< set_mempolicy mode (numactl); -1: as it was started
  std::vector<int> memory_nodes;  ///< its OS nodes
  std::string warning;            ///< one line, for stderr before the program starts
};

/// For `run`: the CPUs of every rule as the process's affinity, --mem as its memory policy
/// (per-thread nodes and the thread cache cannot be had; the warning says which), and a
/// warning that names the program, why, and what it gets instead. Pure.
WholeProcessPlacement whole_process_placement(const PreloadReach& reach,
                                              const WholeProcessRequest& request);

/// For `watch -- CMD`: one line when `command` cannot take a preload ("" when it can).
std::string watch_static_warning(const std::string& command);

}  // namespace threadmap::apply
