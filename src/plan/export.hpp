// Exporting a plan to the knobs other tools already have: taskset, numactl, OpenMP (OMP_PLACES),
// GNU OpenMP (GOMP_CPU_AFFINITY), Intel OpenMP (KMP_AFFINITY), likwid-pin, Slurm and systemd.
// Where the target has a memory knob (numactl --membind, Slurm --mem-bind, systemd NUMAPolicy=/
// NUMAMask=) the export carries the memory nodes too: the spec's memory-node of each thread, or
// else the node of its CPU on the topology (OS node numbers, as those tools use).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/plan/planner.hpp"

namespace threadmap::plan {

/// The export formats, as `--export` spells them.
enum class ExportFormat { taskset, omp, gomp, kmp, likwid, slurm, systemd, numactl };

/// Parses "taskset", "numactl", "omp", "gomp", "kmp", "likwid", "slurm", "systemd"; EINVAL
/// otherwise.
Result<ExportFormat> parse_export_format(std::string_view text);

/// Every name parse_export_format accepts, in the order --help lists them.
const std::vector<std::string>& export_format_names();

/// What an export says beyond the plan's CPUs. The defaults export a plan as `plan --export`
/// does; tune reproduces a candidate (a CPU order, no thread count, the user's command, its
/// own memory policy) with other values.
struct ExportOptions {
  std::string command = "COMMAND";  ///< what stands for the program in the lines
  /// The plan's threads are the program's threads: taskset's per-TID lines, and the OpenMP
  /// formats' OMP_NUM_THREADS. false: the CPU order alone (the process-wide lines, no count).
  bool thread_lines = true;
  /// The memory knob of numactl and Slurm: from the plan (the nodes its threads use, bound),
  /// none, the first-touch node (local) or pages spread over every node (interleave).
  enum class Memory { from_plan, none, local, interleave };
  Memory memory = Memory::from_plan;
};

/// The plan in that format: shell lines ready to paste, with a comment saying how the tool
/// maps threads to the list (thread i = i-th entry for the OpenMP runtimes and likwid-pin, task
/// i for Slurm; process-wide for systemd and numactl). `topology` (may be null: a plan from a
/// latency matrix alone) gives the NUMA node of each planned CPU; without it and without
/// memory-node in the spec the memory lines say the nodes are unknown. Slurm has no interleave:
/// with Memory::interleave its export is "" (nothing can express it).
std::string export_plan(const Plan& plan, ExportFormat format, const Topology* topology = nullptr,
                        const ExportOptions& options = {});

}  // namespace threadmap::plan
