// Plan exporters (see export.hpp). Each list is in thread-creation order, the order OpenMP
// runtimes and likwid-pin hand CPUs to the threads they create.
#include "src/plan/export.hpp"

#include <fmt/format.h>

namespace threadmap::plan {
namespace {

std::string joined(const Plan& plan, const char* sep, const char* before = "",
                   const char* after = "") {
  std::string out;
  for (std::size_t i = 0; i < plan.assignments.size(); ++i) {
    if (i) out += sep;
    out += before;
    const auto& cpus = plan.assignments[i].cpus;
    for (std::size_t k = 0; k < cpus.size(); ++k) out += (k ? "," : "") + std::to_string(cpus[k]);
    out += after;
  }
  return out;
}

CpuSet all_cpus(const Plan& plan) {
  CpuSet set;
  for (const auto& a : plan.assignments)
    for (int c : a.cpus) set.add(c);
  return set;
}

}  // namespace

Result<ExportFormat> parse_export_format(std::string_view text) {
  if (text == "taskset") return ExportFormat::taskset;
  if (text == "omp") return ExportFormat::omp;
  if (text == "gomp") return ExportFormat::gomp;
  if (text == "kmp") return ExportFormat::kmp;
  if (text == "likwid") return ExportFormat::likwid;
  if (text == "slurm") return ExportFormat::slurm;
  if (text == "systemd") return ExportFormat::systemd;
  return Error::invalid("unknown export format '" + std::string(text) +
                        "': must be taskset, omp, gomp, kmp, likwid, slurm or systemd");
}

std::string export_plan(const Plan& plan, ExportFormat format) {
  const std::size_t n = plan.assignments.size();
  switch (format) {
    case ExportFormat::taskset: {
      std::string out = fmt::format("# whole process on the plan's CPUs:\ntaskset -c {} COMMAND\n",
                                    all_cpus(plan).to_list());
      out += "# each thread, once it exists (its TID from `threadmap ps PID`):\n";
      for (const auto& a : plan.assignments) {
        std::string list;
        for (std::size_t k = 0; k < a.cpus.size(); ++k)
          list += (k ? "," : "") + std::to_string(a.cpus[k]);
        out += fmt::format("taskset -p -c {} TID_OF_{}\n", list, a.name);
      }
      return out;
    }
    case ExportFormat::omp:
      return fmt::format(
          "# OpenMP thread i -> place i\nexport OMP_NUM_THREADS={}\nexport OMP_PLACES=\"{}\"\n"
          "export OMP_PROC_BIND=close\n",
          n, joined(plan, ",", "{", "}"));
    case ExportFormat::gomp:
      return fmt::format(
          "# GNU OpenMP thread i -> i-th CPU\nexport OMP_NUM_THREADS={}\nexport "
          "GOMP_CPU_AFFINITY=\"{}\"\n",
          n, joined(plan, " "));
    case ExportFormat::kmp:
      return fmt::format(
          "# Intel/LLVM OpenMP thread i -> i-th CPU\nexport OMP_NUM_THREADS={}\n"
          "export KMP_AFFINITY=\"granularity=fine,explicit,proclist=[{}]\"\n",
          n, joined(plan, ","));
    case ExportFormat::likwid:
      return fmt::format("# thread i -> i-th CPU (OS numbering)\nlikwid-pin -c {} COMMAND\n",
                         joined(plan, ","));
    case ExportFormat::slurm:
      return fmt::format(
          "# Slurm binds tasks, not threads: task i -> i-th CPU\nsrun --cpu-bind=map_cpu:{} "
          "COMMAND\n",
          joined(plan, ","));
    case ExportFormat::systemd:
      return fmt::format(
          "# systemd pins the whole service, not single threads\n[Service]\nCPUAffinity={}\n",
          all_cpus(plan).to_list());
  }
  return {};
}

}  // namespace threadmap::plan
