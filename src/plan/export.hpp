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

/// The plan in that format: shell lines ready to paste, with a comment saying how the tool
/// maps threads to the list (thread i = i-th entry for the OpenMP runtimes and likwid-pin, task
/// i for Slurm; process-wide for systemd and numactl). `topology` (may be null: a plan from a
/// latency matrix alone) gives the NUMA node of each planned CPU; without it and without
/// memory-node in the spec the memory lines say the nodes are unknown.
std::string export_plan(const Plan& plan, ExportFormat format, const Topology* topology = nullptr);

}  // namespace threadmap::plan
