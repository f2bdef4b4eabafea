#include "src/tune/reproduce.hpp"

#include "src/os/install_layout.hpp"
#include "src/os/process.hpp"
#include "src/os/program_file.hpp"
#include "src/plan/export.hpp"

namespace threadmap::tune {
namespace {

// The program a command runs: its first word, after `env` and its NAME=VALUE words.
std::string program_of(const std::vector<std::string>& command) {
  std::size_t i = 0;
  if (i < command.size() && (command[i] == "env" || command[i].ends_with("/env"))) {
    ++i;
    while (i < command.size() && command[i].find('=') != std::string::npos) ++i;
  }
  return i < command.size() ? command[i] : "";
}

bool links_openmp(const std::string& program) {
  const std::string path = os::find_program(program);
  if (path.empty()) return false;
  auto needed = os::elf_needed_libraries(path);
  if (!needed) return false;
  for (const std::string& lib : *needed)
    if (lib.starts_with("libgomp.") || lib.starts_with("libomp.") || lib.starts_with("libiomp5."))
      return true;
  return false;
}

// What `threadmap run` applies, in words, for the comment above its line.
std::string what_it_applies(const Candidate& c) {
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (c.pins())
    add(c.options.plan_path.empty() ? "pins each thread in creation order, as tune did"
                                    : "pins the threads as the plan says, as tune did");
  if (!c.options.memory.empty()) add("memory policy " + c.options.memory);
  if (c.options.thread_cache) add("the thread cache");
  return out.empty() ? "nothing applied" : out;
}

plan::ExportOptions::Memory memory_of(const Candidate& c) {
  if (c.options.memory == "local") return plan::ExportOptions::Memory::local;
  if (c.options.memory == "interleave") return plan::ExportOptions::Memory::interleave;
  return plan::ExportOptions::Memory::none;
}

// The candidate's CPU order as a plan: thread i takes the i-th CPU, as the pin library does.
plan::Plan order_as_plan(const Candidate& c) {
  plan::Plan p;
  for (std::size_t i = 0; i < c.order.size(); ++i) {
    plan::PlannedThread t;
    t.thread = "t" + std::to_string(i);
    t.cpus = {c.order[i]};
    p.assignments.push_back(t);
  }
  return p;
}

// The lines of the other tools for a candidate that pins in a CPU order: the whole process on
// those CPUs (numactl where installed, which also takes the memory policy; else taskset, which
// cannot), OpenMP's places, Slurm's task binding. Each keeps the cache through LD_PRELOAD.
std::string tool_lines(const Candidate& c, const Topology* topology, const ReproduceTools& tools,
                       std::string& left_out) {
  plan::ExportOptions options;
  options.thread_lines = false;  // a CPU order: tune does not know the threads' ids or count
  options.memory = memory_of(c);
  std::vector<std::string> program = c.options.command;
  if (c.options.thread_cache) {
    if (tools.cache_library.empty()) {
      left_out = "the thread cache library was not found: only the threadmap line keeps it";
      return "";
    }
    program.insert(program.begin(), {"env", "LD_PRELOAD=" + tools.cache_library});
  }
  options.command = apply::shell_join(program);
  const plan::Plan p = order_as_plan(c);
  std::string out;
  if (tools.numactl)
    out += plan::export_plan(p, plan::ExportFormat::numactl, topology, options);
  else if (tools.taskset && c.options.memory.empty())
    out += plan::export_plan(p, plan::ExportFormat::taskset, topology, options);
  else if (!c.options.memory.empty())
    left_out = "numactl is not installed: no whole-process line keeps the memory policy";
  if (tools.openmp) out += plan::export_plan(p, plan::ExportFormat::omp, topology, options);
  if (tools.srun) out += plan::export_plan(p, plan::ExportFormat::slurm, topology, options);
  return out;
}

}  // namespace

ReproduceTools find_reproduce_tools(const std::vector<std::string>& command) {
  ReproduceTools tools;
  tools.numactl = !os::find_program("numactl").empty();
  tools.taskset = !os::find_program("taskset").empty();
  bool slurm_job = false;
  for (const auto& [name, value] : os::environment_variables())
    slurm_job = slurm_job || (name == "SLURM_JOB_ID" && !value.empty());
  tools.srun = slurm_job && !os::find_program("srun").empty();
  tools.openmp = links_openmp(program_of(command));
  if (auto lib = os::find_preload_library("cache")) tools.cache_library = *lib;
  return tools;
}

std::string reproduce_lines(const Candidate& candidate, const Topology* topology,
                            const ReproduceTools& tools) {
  if (!candidate.launcher.empty())
    return "# the job, every rank placing its threads inside its share as tune did (" +
           what_it_applies(candidate) + "):\n" + run_line(candidate) + "\n";
  std::string out =
      "# threadmap (" + what_it_applies(candidate) + "):\n" + run_line(candidate) + "\n";
  // Only a CPU order has other tools' equivalents here (a plan's come from `plan --export`).
  if (candidate.order.empty() || !candidate.options.plan_path.empty()) return out;
  std::string left_out;
  out += tool_lines(candidate, topology, tools, left_out);
  if (!left_out.empty()) out += "# " + left_out + "\n";
  return out;
}

}  // namespace threadmap::tune
