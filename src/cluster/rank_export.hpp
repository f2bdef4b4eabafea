// `threadmap plan --ranks N`: the shares of N ranks on a node, written the way launchers take
// per-rank placements -- a Slurm srun line (--cpu-bind=map_cpu/mask_cpu, --mem-bind=
// map_mem/mask_mem) or an Open MPI rankfile -- so the launcher binds what threadmap would split.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/cluster/gpu_share.hpp"
#include "src/cluster/rank_share.hpp"
#include "threadmap/result.hpp"

namespace threadmap::cluster {

enum class RankExport { slurm, rankfile, wrapper };

/// "slurm", "rankfile" or "wrapper"; EINVAL naming the accepted ones otherwise.
Result<RankExport> parse_rank_export(std::string_view text);

/// Every name parse_rank_export accepts ("slurm", "rankfile", "wrapper").
const std::vector<std::string>& rank_export_names();

/// The shares as a launcher's options. `host` names the node in a rankfile.
std::string export_ranks(const std::vector<RankShare>& shares, RankExport format,
                         const std::string& host);
/// The same with each rank's GPUs (`gpus` empty, or one per share): Slurm's --gpu-bind=map_gpu
/// beside --cpu-bind=mask_cpu, the GPUs as comments in a rankfile, and the wrapper's variables
/// (gpu_export.cpp).
std::string export_ranks(const std::vector<RankShare>& shares,
                         const std::vector<GpuPlacement>& gpus, RankExport format,
                         const std::string& host);

/// Hex mask without separators ("0x3", "0x10000000000000000"), as Slurm's mask_cpu and
/// mask_mem take it.
std::string plain_hex_mask(const std::vector<int>& bits);

}  // namespace threadmap::cluster
