// `threadmap run` as given and as checked. RunOptions holds the command line's values, one
// member per flag and nothing computed: what the `run` parser fills, and what a caller that
// writes a `threadmap run` line starts from (options -> argv -> options gives the options back).
// run_request() is the one step that applies every default and every rule about which options
// go together (as ripgrep turns its low-level arguments into high-level ones). Values that need
// the machine (a CPU it lacks, a memory node, a plan's CPUs) are checked where they are read,
// when the launch is prepared (prepare_run); their errors name the same members.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/apply/run_request.hpp"
#include "threadmap/result.hpp"

namespace threadmap::apply {

/// The options of `threadmap run`, as given. One member per flag (named beside it); a flag not
/// given leaves its member default-constructed (false, empty, nullopt). Errors name these
/// members in Error::input. Plain data: copy it, compare it, write a command line from it.
struct RunOptions {
  std::string plan_path;              ///< --plan FILE (threadmap.plan/1)
  bool by_name = false;               ///< --by-name
  std::string cpus;                   ///< --cpus EXPR
  std::optional<std::string> policy;  ///< --policy compact|scatter|round-robin
  std::vector<std::string> skip;      ///< --skip ITEM, one flag per item
  std::vector<std::string> libs;      ///< --lib GLOB=CPUS, one flag per item
  std::string memory;                 ///< --mem POLICY
  bool inherit = false;               ///< --inherit
  bool override_affinity = false;     ///< --override-affinity
  bool thread_cache = false;          ///< --thread-cache
  bool stats = false;                 ///< --stats
  bool watch = false;                 ///< --watch
  bool follow = false;                ///< --follow
  std::optional<int> interval_ms;     ///< --interval MS
  std::string ranks;                  ///< --ranks auto|K/N
  int gpus = 0;                       ///< --gpus [N] (given alone: 1); 0: not given
  std::string gpu_visibility;         ///< --gpu-visibility narrow|all-own-first; "": narrow
  std::string topology_file;          ///< --topology FILE (a recording of this machine)
  std::optional<int> local_rank;      ///< --local-rank K
  std::optional<int> local_size;      ///< --local-size N
  std::string record_dir;             ///< --record DIR
  bool verbose = false;               ///< --verbose
  std::vector<std::string> command;   ///< CMD ARGS, the words after --

  bool operator==(const RunOptions&) const = default;
};

/// The arguments that give `options` back (the exact inverse of the `run` parser): "run", one
/// flag per member set (ranks first, then placement, then the rest), "--", the command. Every
/// `threadmap run` line the tool prints is written by it (tune's candidates, report's advice).
std::vector<std::string> run_arguments(const RunOptions& options);
/// "threadmap " + run_arguments(options), shell-quoted (shell_join): the line to paste.
std::string run_line(const RunOptions& options);
/// `args` joined with spaces, each quoted for a POSIX shell where needed.
std::string shell_join(const std::vector<std::string>& args);

/// `threadmap run` checked: what to launch, how to watch it, which rank it is. Made only by
/// run_request (no public constructor); copies may be passed on.
struct RunCommand {
 private:
  friend Result<RunCommand> run_request(const RunOptions& options);
  RunCommand() = default;

 public:
  RunRequest request;     ///< the launch: pinning rules, memory policy, preloads, CMD
  bool watch = false;     ///< watch the program's threads; the caller shows the summary
  int interval_ms = 100;  ///< the watch's sampling interval
  bool follow = false;    ///< the watch follows the program's descendants too
  /// With the thread cache: every process of the run writes its statistics line to a private
  /// temporary file (TM_CACHE_STATS=FILE), summed after the program ends (RunReport).
  bool stats = false;
  std::string ranks;           ///< "auto" or "K/N": run inside this rank's share; empty: no rank
  int gpus = 0;                ///< with ranks: GPUs per rank, placed next to them; 0: CPUs only
  std::string topology_file;   ///< with GPUs: decide from this recording of the machine
  std::string gpu_visibility;  ///< with GPUs: "narrow" (also "") or "all-own-first"
  std::string record_dir;      ///< with ranks: write the rank's record here; empty: no record
};

/// Checks `options` and turns them into a RunCommand. Refuses with Fault::input, naming the
/// member at fault: no command; a local rank without a local size or the other way round, or
/// with a rank K/N (they name the rank: K/N from them); GPUs or a recorded topology without a
/// rank, a recorded topology without GPUs; an interval or following without a watch, statistics
/// without the thread cache (they would be ignored); a record without ranks; a CPU list with ranks
/// (the share is the CPU list) or with a plan; a policy with neither a CPU list nor ranks; matching
/// by name without a plan; nothing to apply (no plan, CPUs, library rule, memory policy, ranks or
/// thread cache).
Result<RunCommand> run_request(const RunOptions& options);

/// The rule `run` and `watch` share: matching plan threads by name needs a plan (Fault::input
/// about `by_name`).
Status check_by_name(bool by_name, const std::string& plan_path);

}  // namespace threadmap::apply
