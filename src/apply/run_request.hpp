// What `threadmap run` was asked for, turned into the launch of a program under the preload
// libraries: pinning rules validated and encoded into TM_PIN_CONFIG, the libraries found, the
// environment set. Everything is checked here, before anything starts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/os/process.hpp"
#include "src/plan/plan_file.hpp"
#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"

namespace threadmap::apply {

/// The options of `threadmap run`, as values (no flag names: messages describe the value and the
/// CLI adds the flag).
struct RunRequest {
  std::string plan_path;  ///< plan JSON (threadmap.plan/1), or empty
  /// The plan at plan_path when the caller read it already (tune reads it to build its
  /// candidates); empty: prepare_run reads plan_path itself.
  std::optional<plan::PlanFile> plan;
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

/// Which part of a RunRequest an error is about, so the CLI can name the flag.
/// `ranks` is `run --ranks` (cluster::run_rank_command): the rank share could not be taken.
/// `gpus` is `run --ranks --gpus`: the rank's GPUs could not be chosen or placed.
enum class RunField { none, plan, cpus, policy, skip, libs, command, memory, ranks, gpus };

/// Validates `request` on this machine's topology and builds the launch: LD_PRELOAD of the pin
/// library (when there is anything to pin) in front of the thread cache (when asked), with
/// TM_PIN_CONFIG / TM_VERBOSE set. Fails, naming the field, on conflicting or bad options, CPUs
/// outside the allowed set, an unreadable plan, a memory node the machine does not have, or a
/// preload library that cannot be found. `memory_note`, when given, receives one line saying
/// what memory policy the program gets (empty when none), for `run --verbose`. `plan_read`,
/// when given, receives the plan it read (so `run --plan --watch` reads the file once).
/// A program no preload can load into (no PT_INTERP: apply/static_program) is placed as a
/// whole process instead (the rules' CPUs as its affinity, --mem as its policy);
/// `placement_note`, when given, receives the warning line that says so (empty otherwise).
Result<os::LaunchSpec> prepare_run(const RunRequest& request, RunField* failed_field = nullptr,
                                   std::string* memory_note = nullptr,
                                   std::optional<plan::PlanFile>* plan_read = nullptr,
                                   std::string* placement_note = nullptr);

}  // namespace threadmap::apply
