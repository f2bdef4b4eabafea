// Which rank this process is on its node, from the launcher's environment (Open MPI, PMIx,
// Slurm, MPICH/Hydra) or from an explicit "K/N". Pure functions over an environment map, so
// every launcher's spelling is unit-tested without starting one.
#pragma once

#include <map>
#include <string>

#include "threadmap/result.hpp"

namespace threadmap::cluster {

/// This process's place among the ranks of its node.
struct RankIdentity {
  int local_rank = 0;    ///< 0-based rank among the ranks on this node
  int local_size = 1;    ///< ranks on this node
  int global_rank = -1;  ///< job-wide rank when the launcher says it, else -1
  std::string launcher;  ///< "torchrun", "openmpi", "pmix", "slurm", "hydra" or "explicit"
};

using Environment = std::map<std::string, std::string>;

/// Reads the launcher's variables. Precedence when several launchers' variables are present
/// (mpirun under an allocation sets both): torchrun (LOCAL_RANK with LOCAL_WORLD_SIZE), Open
/// MPI, then PMIx, then Slurm, then Hydra -- the
/// innermost launcher, the one that started this process, is checked first. Fails with EINVAL
/// naming the variables looked for when none is set ("not under a launcher"), or naming the
/// variable and its value when one is malformed or inconsistent (rank >= size).
Result<RankIdentity> rank_from_environment(const Environment& env);

/// "K/N": rank K (0-based) of N on this node. Digits only; K < N; N > 0.
Result<RankIdentity> parse_rank_spec(const std::string& text);

/// "auto" reads the environment; anything else is parsed as K/N.
Result<RankIdentity> resolve_ranks(const std::string& text, const Environment& env);

/// Tasks on node `node_id` from Slurm's SLURM_TASKS_PER_NODE syntax ("2(x3),1": three nodes
/// with 2 tasks, then one with 1). Fails with EINVAL on a malformed list or a node past its end.
Result<int> slurm_tasks_on_node(const std::string& tasks_per_node, int node_id);

}  // namespace threadmap::cluster
