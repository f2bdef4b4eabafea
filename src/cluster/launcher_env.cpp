#include "src/cluster/launcher_env.hpp"

#include <cctype>
#include <climits>
#include <optional>

namespace threadmap::cluster {
namespace {

// A non-negative decimal that fits an int; nothing else (no sign, no spaces, no suffix).
std::optional<int> parse_count(const std::string& text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

const std::string* find(const Environment& env, const std::string& name) {
  auto it = env.find(name);
  return it == env.end() ? nullptr : &it->second;
}

Result<int> count_var(const Environment& env, const std::string& name) {
  const std::string* value = find(env, name);
  if (!value) return Error::invalid(name + " is not set");
  auto n = parse_count(*value);
  if (!n) return Error::invalid("bad " + name + "='" + *value + "': expected a number >= 0");
  return *n;
}

Result<RankIdentity> checked(RankIdentity id, const std::string& rank_var,
                             const std::string& size_var) {
  if (id.local_size <= 0)
    return Error::invalid(size_var + "=" + std::to_string(id.local_size) +
                          ": a node cannot have 0 ranks");
  if (id.local_rank >= id.local_size)
    return Error::invalid(rank_var + "=" + std::to_string(id.local_rank) + " is not below " +
                          size_var + "=" + std::to_string(id.local_size));
  return id;
}

// One launcher's pair of variables (rank, size) plus an optional global rank.
Result<RankIdentity> pair(const Environment& env, const std::string& launcher,
                          const std::string& rank_var, const std::string& size_var,
                          const std::string& global_var) {
  RankIdentity id;
  id.launcher = launcher;
  auto rank = count_var(env, rank_var);
  if (!rank) return rank.error();
  auto size = count_var(env, size_var);
  if (!size) return size.error();
  id.local_rank = *rank;
  id.local_size = *size;
  if (find(env, global_var)) {
    auto global = count_var(env, global_var);
    if (!global) return global.error();
    id.global_rank = *global;
  }
  return checked(id, rank_var, size_var);
}

Result<RankIdentity> from_slurm(const Environment& env) {
  RankIdentity id;
  id.launcher = "slurm";
  auto rank = count_var(env, "SLURM_LOCALID");
  if (!rank) return rank.error();
  id.local_rank = *rank;
  // Tasks on this node: the step's own list first (srun inside an allocation), then the job's.
  std::string size_var;
  for (const char* var : {"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"}) {
    const std::string* list = find(env, var);
    if (!list) continue;
    int node = 0;
    if (find(env, "SLURM_NODEID")) {
      auto n = count_var(env, "SLURM_NODEID");
      if (!n) return n.error();
      node = *n;
    }
    auto tasks = slurm_tasks_on_node(*list, node);
    if (!tasks) return tasks.error().with_context(std::string("bad ") + var);
    id.local_size = *tasks;
    size_var = var;
    break;
  }
  if (size_var.empty()) {
    auto n = count_var(env, "SLURM_NTASKS_PER_NODE");
    if (!n)
      return Error::invalid(
          "SLURM_LOCALID is set but not the tasks on this node (SLURM_STEP_TASKS_PER_NODE, "
          "SLURM_TASKS_PER_NODE or SLURM_NTASKS_PER_NODE)");
    id.local_size = *n;
    size_var = "SLURM_NTASKS_PER_NODE";
  }
  if (find(env, "SLURM_PROCID")) {
    auto global = count_var(env, "SLURM_PROCID");
    if (!global) return global.error();
    id.global_rank = *global;
  }
  return checked(id, "SLURM_LOCALID", size_var);
}

}  // namespace

Result<int> slurm_tasks_on_node(const std::string& list, int node_id) {
  auto bad = [&](const std::string& why) {
    return Error::invalid("'" + list + "': " + why + " (expected e.g. 2(x3),1)");
  };
  int node = 0;
  size_t pos = 0;
  while (pos < list.size()) {
    size_t end = list.find(',', pos);
    std::string item = list.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    int repeat = 1;
    size_t paren = item.find('(');
    std::string count_text = item.substr(0, paren);
    if (paren != std::string::npos) {
      if (item.size() < paren + 4 || item.compare(paren, 2, "(x") != 0 || item.back() != ')')
        return bad("bad item '" + item + "'");
      auto r = parse_count(item.substr(paren + 2, item.size() - paren - 3));
      if (!r || *r == 0) return bad("bad repeat in '" + item + "'");
      repeat = *r;
    }
    auto tasks = parse_count(count_text);
    if (!tasks) return bad("bad task count in '" + item + "'");
    if (node_id < node + repeat) return *tasks;
    node += repeat;
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return bad("node " + std::to_string(node_id) + " is past its end (" + std::to_string(node) +
             " node(s))");
}

Result<RankIdentity> rank_from_environment(const Environment& env) {
  // torchrun (torch.distributed.run) sets LOCAL_RANK and LOCAL_WORLD_SIZE for its workers; run
  // under srun or mpirun, its workers inherit the launcher's variables for torchrun itself (one
  // task), so torchrun's own pair, the innermost, comes first.
  if (find(env, "LOCAL_RANK") && find(env, "LOCAL_WORLD_SIZE"))
    return pair(env, "torchrun", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "RANK");
  if (find(env, "OMPI_COMM_WORLD_LOCAL_RANK"))
    return pair(env, "openmpi", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
                "OMPI_COMM_WORLD_RANK");
  if (find(env, "PMIX_LOCAL_RANK"))
    return pair(env, "pmix", "PMIX_LOCAL_RANK", "PMIX_LOCAL_SIZE", "PMIX_RANK");
  if (find(env, "SLURM_LOCALID")) return from_slurm(env);
  if (find(env, "MPI_LOCALRANKID"))
    return pair(env, "hydra", "MPI_LOCALRANKID", "MPI_LOCALNRANKS", "PMI_RANK");
  return Error::invalid(
      "not under a launcher: none of OMPI_COMM_WORLD_LOCAL_RANK (Open MPI), PMIX_LOCAL_RANK "
      "(PMIx), SLURM_LOCALID (Slurm), MPI_LOCALRANKID (MPICH/Hydra), LOCAL_RANK with "
      "LOCAL_WORLD_SIZE (torchrun) is set; give the rank as K/N instead");
}

Result<RankIdentity> parse_rank_spec(const std::string& text) {
  size_t slash = text.find('/');
  auto bad = [&](const std::string& why) {
    return Error::invalid("'" + text + "': " + why + " (expected K/N, K from 0, or auto)");
  };
  if (slash == std::string::npos) return bad("no '/'");
  auto k = parse_count(text.substr(0, slash));
  auto n = parse_count(text.substr(slash + 1));
  if (!k || !n) return bad("K and N must be whole numbers");
  if (*n == 0) return bad("N must be at least 1");
  if (*k >= *n) return bad("K must be below N");
  RankIdentity id;
  id.local_rank = *k;
  id.local_size = *n;
  id.launcher = "explicit";
  return id;
}

Result<RankIdentity> resolve_ranks(const std::string& text, const Environment& env) {
  if (text == "auto") return rank_from_environment(env);
  return parse_rank_spec(text);
}

}  // namespace threadmap::cluster
