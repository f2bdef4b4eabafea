// `threadmap plan` (a thread plan, not `--ranks`) as one call: the spec from the one form given
// (a file, --pairs N or --threads N with a policy), the latency matrix when one is given, the
// topology (another machine's XML, or this machine's when there is no usable matrix), this
// machine's isolated CPUs, and the plan solved on them. The CLI prints what comes back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "src/plan/planner.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::plan {

/// What `plan` was asked for, as values. Exactly one of spec_file, pairs and threads is given
/// (the CLI checks the combination before calling).
struct PlanRequest {
  std::string spec_file;      ///< workload spec JSON; empty: a quick form
  int pairs = 0;              ///< quick form: N pairs (pairs_spec)
  int threads = 0;            ///< quick form: N threads placed by `policy` (threads_spec)
  std::string policy;         ///< with threads: parse_quick_policy's text; empty: compact
  std::string topology_file;  ///< hwloc XML of the machine to plan for; empty: this machine or none
  std::string latency_file;   ///< measured latency matrix; empty: none
  std::string allowed;        ///< overrides the spec's constraints.allowed when not empty
  std::string reserved;       ///< overrides the spec's constraints.reserved when not empty
  bool oversubscribe = false;  ///< sets the spec's oversubscribe (never clears it)
  double time_limit_s = 1.5;   ///< the whole search's time (every solver together)
  std::uint64_t seed = 1;      ///< local search seed
  std::string isolated_file;   ///< tests: read the isolated CPUs here instead of the kernel's file
};

/// What a refusal is about, so the caller can name its flag: the value of spec_file, pairs,
/// threads, policy, latency_file or topology_file; `machine` (this machine's topology or isolated
/// CPUs could not be read) or `plan` (the spec cannot be planned on this machine).
enum class PlanRequestField { spec, pairs, threads, policy, latency, topology, machine, plan };

/// The plan, or why there is none.
struct PlannedRequest {
  std::optional<Error> refused;  ///< set: no plan; the message names the value, not a flag
  PlanRequestField refused_field = PlanRequestField::plan;  ///< with `refused`: what it is about
  Plan plan;
  /// The topology the plan was made on (exports need it); nullopt when the matrix alone stood
  /// for the machine.
  std::optional<Topology> topology;
};

/// Reads the spec, loads the matrix and the topology (topology_file's; this machine's when no
/// topology_file is given and the matrix is absent or unstable, because an unstable matrix is
/// not planned on and make_plan says why), reads the isolated CPUs when the topology is this
/// machine's, and calls make_plan.
PlannedRequest plan_from_request(const PlanRequest& request);

}  // namespace threadmap::plan
