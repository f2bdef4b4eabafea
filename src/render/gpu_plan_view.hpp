// `plan --ranks N --gpus`: each rank's GPUs, CPUs, memory node and NIC as a table and as the
// rank-shares JSON with GPU fields (docs/json.md, threadmap.rank-shares/1).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/cluster/gpu_share.hpp"

namespace threadmap::render {

/// One row per rank: GPU (index, bus id, model), CPUs, memory node, NIC, how; then the notes.
std::string gpu_ranks_text(const std::vector<cluster::GpuPlacement>& ranks);
/// The rank-shares document, each rank with "gpus", "nic", "environment" and "notes".
nlohmann::json gpu_ranks_json(const std::vector<cluster::GpuPlacement>& ranks);

}  // namespace threadmap::render
