// Static programs: what the preloads cannot do in them, and the whole-process placement that
// replaces it (taskset's mask, numactl's policy).
#include "src/apply/static_program.hpp"

#include "src/core/text.hpp"
#include "src/os/executable_kind.hpp"

namespace threadmap::apply {
namespace {

constexpr const char* kStaticWhy =
    "is statically linked (no PT_INTERP: plain Go, static C, static-pie), so no preload library "
    "can load into it";

// The numactl option that does what `policy` does to a whole process.
std::string numactl_words(const MemoryPolicy& policy) {
  switch (policy.mode) {
    case MemoryMode::local:
      return "--localalloc";
    case MemoryMode::interleave:
      return "--interleave=" + node_list(policy.nodes);
    case MemoryMode::bind:
      return "--membind=" + node_list(policy.nodes);
    case MemoryMode::preferred:
      return "--preferred=" + node_list(policy.nodes);
  }
  return "";
}

// The kernel's set_mempolicy mode numbers (<linux/mempolicy.h>, a stable ABI).
int kernel_mode(MemoryMode mode) {
  switch (mode) {
    case MemoryMode::preferred:
      return 1;
    case MemoryMode::bind:
      return 2;
    case MemoryMode::interleave:
      return 3;
    case MemoryMode::local:
      return 4;
  }
  return -1;
}

}  // namespace

PreloadReach preload_reach(const std::string& command) {
  PreloadReach reach;
  auto found = os::find_executable(command);
  if (!found) return reach;
  const bool script = found->kind == os::LoaderKind::script;
  reach.program = script ? found->interpreter : found->path;
  if (found->runs_as != os::LoaderKind::static_elf) return reach;
  reach.reaches = false;
  reach.why =
      script ? "'" + found->path + "' runs under '" + found->interpreter + "', which " + kStaticWhy
             : std::string("'") + found->path + "' " + kStaticWhy;
  return reach;
}

WholeProcessPlacement whole_process_placement(const PreloadReach& reach,
                                              const WholeProcessRequest& request) {
  WholeProcessPlacement out;
  if (reach.reaches) return out;
  std::string gets;
  if (!request.cpus.empty()) {
    out.cpus = request.cpus.to_vector();
    gets = std::string("the whole process runs on ") +
           (request.cpus.count() == 1 ? "CPU " : "CPUs ") + request.cpus.to_list() +
           " (as taskset -c " + request.cpus.to_list() + "), so it sizes itself for " +
           std::to_string(request.cpus.count()) + (request.cpus.count() == 1 ? " CPU" : " CPUs") +
           " as under taskset (raw system calls included), its threads not placed one by one";
  }
  if (request.memory) {
    out.memory_mode = kernel_mode(request.memory->mode);
    out.memory_nodes = request.memory->nodes;
    gets += std::string(gets.empty() ? "the whole process gets" : " and gets") + " memory policy " +
            memory_mode_name(request.memory->mode) +
            (request.memory->nodes.empty() ? "" : ":" + node_list(request.memory->nodes)) +
            " (as numactl " + numactl_words(*request.memory) + ")";
  }
  if (gets.empty()) gets = "it runs as without threadmap";
  std::string lost;
  if (request.per_thread_memory) lost += "; the plan's per-thread memory nodes are not applied";
  if (request.thread_cache) lost += "; the thread cache is not used";
  out.warning = "warning: " + reach.why + ": " + gets + lost +
                "; dynamically linked programs it starts still get the preloads";
  return out;
}

std::string watch_static_warning(const std::string& command) {
  const PreloadReach reach = preload_reach(command);
  if (reach.reaches) return "";
  return "warning: " + reach.why +
         ": `run` can place it only as a whole process; watching reads the kernel and works as "
         "for any program";
}

}  // namespace threadmap::apply
