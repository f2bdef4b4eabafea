// Exporting a plan to the knobs other tools already have: taskset, OpenMP (OMP_PLACES), GNU
// OpenMP (GOMP_CPU_AFFINITY), Intel OpenMP (KMP_AFFINITY), likwid-pin, Slurm and systemd.
#pragma once

#include <string>
#include <string_view>

#include "src/plan/planner.hpp"

namespace threadmap::plan {

/// The export formats, as `--export` spells them.
enum class ExportFormat { taskset, omp, gomp, kmp, likwid, slurm, systemd };

/// Parses "taskset", "omp", "gomp", "kmp", "likwid", "slurm", "systemd"; EINVAL otherwise.
Result<ExportFormat> parse_export_format(std::string_view text);

/// The plan in that format: shell lines ready to paste, with a comment saying how the tool
/// maps threads to the list (thread i = i-th entry for the OpenMP runtimes and likwid-pin, task
/// i for Slurm; process-wide for systemd).
std::string export_plan(const Plan& plan, ExportFormat format);

}  // namespace threadmap::plan
