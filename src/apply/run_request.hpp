// The launch part of `threadmap run` (run_options.hpp checks the command line into it), turned
// into the launch of a program under the preload libraries: the values read and checked on this
// machine, pinning rules encoded into TM_PIN_CONFIG, the libraries found, the environment set.
// Everything is checked here, before anything starts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/os/process.hpp"
#include "src/plan/plan_file.hpp"
#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"

namespace threadmap::apply {

struct RunOptions;
struct RunCommand;
Result<RunCommand> run_request(const RunOptions& options);

/// What to launch, as values (no flag names: messages describe the value; errors name these
/// members, the same names RunOptions has). Its combinations are checked by run_request, its
/// only source (no public constructor: a launch that skipped the check cannot be written);
/// prepare_run reads and checks the values. A copy may be narrowed (cluster::place_rank puts
/// it inside a rank's share).
struct RunRequest {
 private:
  friend struct RunCommand;
  RunRequest() = default;

 public:
  std::string plan_path;           ///< plan JSON (threadmap.plan/1), or empty
  bool by_name = false;            ///< with a plan: match assignments to thread names
  std::string cpus;                ///< CPU expression to spread threads over, or empty
  std::string policy = "compact";  ///< with cpus: compact, scatter or round-robin
  std::vector<std::string> skip;   ///< creation index, name glob or lib:GLOB, one per item
  std::vector<std::string> libs;   ///< GLOB=CPUS: threads whose start routine is in a library
  bool inherit = false;            ///< programs the command execs keep the rules
  /// Pin threads created with their own affinity attribute too (without it, theirs wins).
  bool override_affinity = false;
  bool thread_cache = false;         ///< also preload the thread cache
  bool verbose = false;              ///< the preload libraries print their decisions
  std::string line_tag;              ///< after "threadmap: " on every preload line (host/rank)
  std::string memory;                ///< --mem: local, interleave[:NODES], bind:NODES,
                                     ///< preferred:NODE (OS node numbers), or empty
  std::vector<std::string> command;  ///< program and arguments
  /// With `run --ranks`: the rank's share. A plan's CPUs must lie inside it (a plan for the
  /// whole node would put every rank's threads on the same CPUs). Empty: no limit.
  CpuSet within;
  /// Variables set for the program (`run --ranks --gpus`: the rank's visible GPUs and NIC).
  std::vector<std::pair<std::string, std::string>> environment;
};

/// Reads and checks the values of `request` on this machine's topology and builds the launch:
/// LD_PRELOAD of the pin library (when there is anything to pin) in front of the thread cache
/// (when asked), with TM_PIN_CONFIG / TM_VERBOSE set. Fails, with Error::input naming the
/// member, on a value that cannot work here (Fault::input: no command, an unknown policy, CPUs
/// the machine lacks or an empty set, a bad skip item or library rule, a memory policy or node it
/// cannot have) or a plan that cannot be read or used here (Fault::work, `plan_path`:
/// unreadable, malformed, outside the rank's share, a memory node this machine lacks); a preload
/// library that cannot be found is the work's fault too. `memory_note`, when given, receives one
/// line saying what memory policy the program gets (empty when none), for `run --verbose`.
/// `plan_read`, when given, receives the plan it read (so `run --plan --watch` reads the file
/// once). A program no preload can load into (no PT_INTERP: apply/static_program) is placed as a
/// whole process instead (the rules' CPUs as its affinity, the memory policy as its policy);
/// `placement_note`, when given, receives the warning line that says so (empty otherwise).
/// `view_note`, when given, receives one line saying which CPUs the program sees where it sizes
/// itself, and where it cannot be shown them (for `run --verbose`; empty without CPU rules or
/// for a program placed as a whole process, whose warning line says it).
Result<os::LaunchSpec> prepare_run(const RunRequest& request, std::string* memory_note = nullptr,
                                   std::optional<plan::PlanFile>* plan_read = nullptr,
                                   std::string* placement_note = nullptr,
                                   std::string* view_note = nullptr);

}  // namespace threadmap::apply
