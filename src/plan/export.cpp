// Plan exporters (see export.hpp). Each list is in thread-creation order, the order OpenMP
// runtimes and likwid-pin hand CPUs to the threads they create.
#include "src/plan/export.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "src/core/text.hpp"

namespace threadmap::plan {
namespace {

// A thread's CPUs as comma-separated numbers, never ranges: OMP_PLACES' braces take no ranges.
std::string cpu_numbers(const CpuSet& cpus) {
  std::string out;
  for (int cpu : cpus.to_vector()) out += (out.empty() ? "" : ",") + std::to_string(cpu);
  return out;
}

std::string threads_cpus(const Plan& plan, const char* sep, const char* before = "",
                         const char* after = "") {
  std::string out;
  for (std::size_t i = 0; i < plan.assignments.size(); ++i) {
    if (i) out += sep;
    out += before;
    out += cpu_numbers(plan.assignments[i].cpus);
    out += after;
  }
  return out;
}

CpuSet all_cpus(const Plan& plan) {
  CpuSet set;
  for (const auto& a : plan.assignments) set |= a.cpus;
  return set;
}

// The memory node of each planned thread (OS numbers): its spec memory-node, else the node of
// its first CPU on the topology, else -1 (unknown).
struct MemoryNodes {
  std::vector<int> per_thread;
  bool any_stated = false;  // some thread has a memory-node in the spec
  bool all_known = true;
  std::vector<int> all;  // the distinct known nodes, ascending
  std::string source;    // what the nodes come from, for the comment
};

MemoryNodes memory_nodes(const Plan& plan, const Topology* topology) {
  MemoryNodes m;
  bool any_derived = false;
  for (const auto& a : plan.assignments) {
    int node = a.memory_node;
    if (node >= 0) {
      m.any_stated = true;
    } else if (topology && !a.cpus.empty()) {
      const PuPlace* pu = topology->pu(a.cpus.first());
      if (pu && pu->numa_os >= 0) {
        node = pu->numa_os;
        any_derived = true;
      }
    }
    if (node < 0) m.all_known = false;
    m.per_thread.push_back(node);
    if (node >= 0) m.all.push_back(node);
  }
  std::sort(m.all.begin(), m.all.end());
  m.all.erase(std::unique(m.all.begin(), m.all.end()), m.all.end());
  m.source = m.any_stated && any_derived ? "the spec's memory-node, else the node of the CPU"
             : m.any_stated              ? "the spec's memory-node"
                                         : "the node of each thread's CPU on the topology";
  return m;
}

const char* kNodesUnknown =
    "# memory: NUMA nodes unknown (no topology given and no memory-node in the spec)\n";

std::string numactl_export(const Plan& plan, const Topology* topology,
                           const ExportOptions& options) {
  MemoryNodes m = memory_nodes(plan, topology);
  std::string cpus = all_cpus(plan).to_list();
  switch (options.memory) {
    case ExportOptions::Memory::none:
      return fmt::format("# whole process on these CPUs:\nnumactl --physcpubind={} COMMAND\n",
                         cpus);
    case ExportOptions::Memory::local:
      return fmt::format(
          "# whole process on these CPUs, memory on the node of the CPU that first touches it:\n"
          "numactl --physcpubind={} --localalloc COMMAND\n",
          cpus);
    case ExportOptions::Memory::interleave:
      return fmt::format(
          "# whole process on these CPUs, pages spread over every node:\n"
          "numactl --physcpubind={} --interleave=all COMMAND\n",
          cpus);
    case ExportOptions::Memory::from_plan:
      break;
  }
  if (!m.all_known || m.all.empty())
    return std::string(kNodesUnknown) +
           fmt::format("# whole process on the plan's CPUs:\nnumactl --physcpubind={} COMMAND\n",
                       cpus);
  // MPOL_BIND over several nodes takes each page from the bound node nearest the CPU that
  // touches it, so threads on two nodes still get local memory.
  return fmt::format(
      "# whole process on the plan's CPUs, memory bound to the nodes its threads use\n"
      "# (OS node numbers, from {}):\nnumactl --physcpubind={} --membind={} COMMAND\n"
      "# or spread the pages over those nodes:\n"
      "# numactl --physcpubind={} --interleave={} COMMAND\n",
      m.source, cpus, node_list(m.all), cpus, node_list(m.all));
}

std::string slurm_export(const Plan& plan, const Topology* topology, const ExportOptions& options) {
  MemoryNodes m = memory_nodes(plan, topology);
  std::string cpu_bind = "--cpu-bind=map_cpu:" + threads_cpus(plan, ",");
  if (options.memory == ExportOptions::Memory::interleave) return "";
  if (options.memory == ExportOptions::Memory::none)
    return fmt::format("# Slurm binds tasks, not threads: task i -> i-th CPU\nsrun {} COMMAND\n",
                       cpu_bind);
  if (options.memory == ExportOptions::Memory::from_plan && m.any_stated && m.all_known) {
    std::string map;
    for (std::size_t i = 0; i < m.per_thread.size(); ++i)
      map += (i ? "," : "") + std::to_string(m.per_thread[i]);
    return fmt::format(
        "# Slurm binds tasks, not threads: task i -> i-th CPU, its memory on the i-th node\n"
        "# (OS node numbers, from {})\nsrun {} --mem-bind=map_mem:{} COMMAND\n",
        m.source, cpu_bind, map);
  }
  // local: each task's memory on the node of the CPU it is bound to, which Slurm knows.
  return fmt::format(
      "# Slurm binds tasks, not threads: task i -> i-th CPU, memory local to that CPU\n"
      "srun {} --mem-bind=local COMMAND\n",
      cpu_bind);
}

std::string systemd_export(const Plan& plan, const Topology* topology) {
  MemoryNodes m = memory_nodes(plan, topology);
  std::string out = fmt::format(
      "# systemd pins the whole service, not single threads\n[Service]\nCPUAffinity={}\n",
      all_cpus(plan).to_list());
  if (!m.all_known || m.all.empty()) return std::string(kNodesUnknown) + out + "NUMAPolicy=local\n";
  return fmt::format("# memory on the nodes the threads use (OS node numbers, from {})\n",
                     m.source) +
         out + fmt::format("NUMAPolicy=bind\nNUMAMask={}\n", node_list(m.all));
}

}  // namespace

const std::vector<std::string>& export_format_names() {
  static const std::vector<std::string> names = {"taskset", "numactl", "omp",   "gomp",
                                                 "kmp",     "likwid",  "slurm", "systemd"};
  return names;
}

Result<ExportFormat> parse_export_format(std::string_view text) {
  if (text == "taskset") return ExportFormat::taskset;
  if (text == "numactl") return ExportFormat::numactl;
  if (text == "omp") return ExportFormat::omp;
  if (text == "gomp") return ExportFormat::gomp;
  if (text == "kmp") return ExportFormat::kmp;
  if (text == "likwid") return ExportFormat::likwid;
  if (text == "slurm") return ExportFormat::slurm;
  if (text == "systemd") return ExportFormat::systemd;
  return Error::invalid("unknown export format '" + std::string(text) +
                        "': must be taskset, numactl, omp, gomp, kmp, likwid, slurm or systemd");
}

namespace {

// "export OMP_NUM_THREADS=N\n" when the plan's threads are the program's, else "".
std::string thread_count(std::size_t n, const ExportOptions& options) {
  return options.thread_lines ? fmt::format("export OMP_NUM_THREADS={}\n", n) : "";
}

std::string export_lines(const Plan& plan, ExportFormat format, const Topology* topology,
                         const ExportOptions& options) {
  const std::size_t n = plan.assignments.size();
  switch (format) {
    case ExportFormat::taskset: {
      std::string out = fmt::format("# whole process on the plan's CPUs:\ntaskset -c {} COMMAND\n",
                                    all_cpus(plan).to_list());
      if (!options.thread_lines) return out;
      out += "# each thread, once it exists (its TID from `threadmap ps PID`):\n";
      for (const auto& a : plan.assignments) {
        out += fmt::format("taskset -p -c {} TID_OF_{}\n", cpu_numbers(a.cpus), a.thread);
      }
      return out;
    }
    case ExportFormat::omp:
      return "# OpenMP thread i -> place i\n" + thread_count(n, options) +
             fmt::format("export OMP_PLACES=\"{}\"\nexport OMP_PROC_BIND=close\n",
                         threads_cpus(plan, ",", "{", "}"));
    case ExportFormat::gomp:
      return "# GNU OpenMP thread i -> i-th CPU\n" + thread_count(n, options) +
             fmt::format("export GOMP_CPU_AFFINITY=\"{}\"\n", threads_cpus(plan, " "));
    case ExportFormat::kmp:
      return "# Intel/LLVM OpenMP thread i -> i-th CPU\n" + thread_count(n, options) +
             fmt::format("export KMP_AFFINITY=\"granularity=fine,explicit,proclist=[{}]\"\n",
                         threads_cpus(plan, ","));
    case ExportFormat::likwid: {
      // likwid-pin(1): "with pthreads the parent thread is always pinned" (to the first CPU of
      // -c), and a program whose main thread only creates workers needs num_threads+1 CPUs.
      // Without the extra CPU every worker lands one CPU off (planned SMT pairs split).
      std::string out = fmt::format(
          "# likwid-pin pins the main thread to the first CPU of -c and each thread it creates to\n"
          "# the next one, in creation order (OS numbering).\n"
          "# OpenMP, or a program whose main thread is the plan's first thread:\n"
          "likwid-pin -c {} COMMAND\n",
          threads_cpus(plan, ","));
      if (!plan.assignments.empty() && !plan.assignments[0].cpus.empty())
        out += fmt::format(
            "# pthreads whose main thread only creates the planned threads (main shares CPU {} "
            "with the first):\nlikwid-pin -c {},{} COMMAND\n",
            plan.assignments[0].cpus.first(), plan.assignments[0].cpus.first(),
            threads_cpus(plan, ","));
      return out;
    }
    case ExportFormat::slurm:
      return slurm_export(plan, topology, options);
    case ExportFormat::systemd:
      return systemd_export(plan, topology);
    case ExportFormat::numactl:
      return numactl_export(plan, topology, options);
  }
  return {};
}

// The placeholder replaced by the command, where the lines name it.
std::string with_command(std::string text, const std::string& command) {
  const std::string placeholder = "COMMAND";
  if (command == placeholder) return text;
  for (std::size_t pos = text.find(placeholder); pos != std::string::npos;
       pos = text.find(placeholder, pos + command.size()))
    text.replace(pos, placeholder.size(), command);
  return text;
}

}  // namespace

std::string export_plan(const Plan& plan, ExportFormat format, const Topology* topology,
                        const ExportOptions& options) {
  return with_command(export_lines(plan, format, topology, options), options.command);
}

}  // namespace threadmap::plan
