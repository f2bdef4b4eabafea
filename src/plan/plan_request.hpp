// `threadmap plan` (a thread plan, not `--ranks`) as given, as checked and as one call.
// PlanOptions holds the command line's values, one member per flag; plan_request() applies
// every default and every rule about which options go together; plan_from_request() reads the
// spec from the one form given (a file, N pairs or N threads with a policy), the latency matrix
// when one is given, the topology (another machine's XML, or this machine's when there is no
// usable matrix), this machine's isolated CPUs, and solves the plan on them. The CLI prints
// what comes back. The rank form (`plan --ranks N`) is cluster::rank_plan_request's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "src/plan/export.hpp"
#include "src/plan/planner.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::plan {

/// The options of `threadmap plan`, as given (both forms: a thread plan and rank shares). One
/// member per flag (named beside it); a flag not given leaves its member default-constructed.
/// Errors name these members in Error::input.
struct PlanOptions {
  std::string spec_file;                   ///< --spec FILE
  int pairs = 0;                           ///< --pairs N
  int threads = 0;                         ///< --threads N
  std::optional<std::string> policy;       ///< --policy P
  std::string topology_file;               ///< --topology FILE.xml
  std::string latency_file;                ///< --latency FILE
  std::optional<std::string> allowed;      ///< --allowed EXPR (given, even empty)
  std::string reserved;                    ///< --reserved EXPR
  bool oversubscribe = false;              ///< --oversubscribe
  bool json = false;                       ///< --json
  std::string export_format;               ///< --export FORMAT
  int ranks = 0;                           ///< --ranks N
  std::string host;                        ///< --host NAME
  int gpus = 0;                            ///< --gpus [N] (given alone: 1); 0: not given
  std::string gpu_visibility;              ///< --gpu-visibility narrow|all-own-first; "": narrow
  std::string output;                      ///< -o, --output FILE
  std::optional<double> time_limit_s;      ///< --time-limit S
  std::optional<std::uint64_t> min_steps;  ///< --min-steps N
  std::optional<std::uint64_t> seed;       ///< --seed N
};

/// A thread plan, checked: the one form of spec, its inputs and how to solve it.
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
  /// Moves each search start is owed before time_limit_s may stop it (SolveOptions::min_steps).
  std::uint64_t min_steps = kDefaultMinSteps;
  std::uint64_t seed = 1;     ///< local search seed
  std::string isolated_file;  ///< tests: read the isolated CPUs here instead of the kernel's file
  std::optional<ExportFormat> format;  ///< print the plan for this tool; nullopt: do not
};

/// Checks the thread form of `options` (options.ranks is 0) and turns it into a PlanRequest.
/// Refuses with Fault::input, naming the member: a node name (it is for rank shares); an
/// unknown export format; not exactly one of a spec, pairs and threads; a policy without
/// threads; an empty allowed set.
Result<PlanRequest> plan_request(const PlanOptions& options);

/// The allowed-set rule both forms share: given, it names at least one CPU (Fault::input about
/// `allowed`; left out, it means every allowed CPU).
Status check_allowed_given(const std::optional<std::string>& allowed);

/// The plan and the topology it was made on.
struct PlannedRequest {
  Plan plan;
  /// The topology the plan was made on (exports need it); nullopt when the matrix alone stood
  /// for the machine.
  std::optional<Topology> topology;
};

/// Reads the spec, loads the matrix and the topology (topology_file's; this machine's when no
/// topology_file is given and the matrix is absent or unstable, because an unstable matrix is
/// not planned on and make_plan says why), reads the isolated CPUs when the topology is this
/// machine's, and calls make_plan. Errors name the member they are about: a file that cannot be
/// read or used (`spec_file`, `latency_file`, `topology_file`: the work's fault), a value the
/// topology refuses (`pairs`, `threads`, `policy`, `allowed`, `reserved`: Fault::input); a
/// spec that cannot be planned on the machine is the work's fault, about no single member.
Result<PlannedRequest> plan_from_request(const PlanRequest& request);

}  // namespace threadmap::plan
