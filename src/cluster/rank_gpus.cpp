#include "src/cluster/rank_gpus.hpp"

#include <algorithm>
#include <cctype>

#include "src/cluster/rank_gpus_read.hpp"
#include "src/core/text.hpp"

namespace threadmap::cluster {
namespace {

constexpr unsigned kNvidia = 0x10de;
constexpr unsigned kAmd = 0x1002;

// The rank's GPUs first, then every other GPU of the node in the runtime's order.
std::vector<const Device*> own_first_list(const std::vector<const Device*>& mine,
                                          const std::vector<const Device*>& all) {
  std::vector<const Device*> out = mine;
  for (const Device* g : all)
    if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
  return out;
}

}  // namespace

Result<GpuVisibility> parse_gpu_visibility(const std::string& text) {
  if (text == "narrow") return GpuVisibility::narrow;
  if (text == "all-own-first") return GpuVisibility::all_own_first;
  return Error::invalid("bad GPU visibility '" + text + "': expected narrow or all-own-first");
}

std::vector<std::pair<std::string, std::string>> visible_devices_env(
    const std::vector<const Device*>& gpus, const Environment& env) {
  if (gpus.empty()) return {};
  std::vector<std::string> indexes, uuids;
  for (const Device* g : gpus) {
    indexes.push_back(std::to_string(g->index));
    if (!g->uuid.empty()) uuids.push_back(g->uuid);
  }
  const bool by_uuid = uuids.size() == gpus.size();
  switch (gpus.front()->vendor_id) {
    case kNvidia:
      // Indexes are bus order only with CUDA_DEVICE_ORDER=PCI_BUS_ID (CUDA's default is
      // fastest first); a UUID needs no order.
      if (by_uuid) return {{"CUDA_VISIBLE_DEVICES", joined(uuids, ",")}};
      return {{"CUDA_VISIBLE_DEVICES", joined(indexes, ",")}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}};
    case kAmd:
      // ROCr takes "GPU-" + 16 hex digits (Device::uuid's form) or ROCm's own index.
      return {{"ROCR_VISIBLE_DEVICES", by_uuid ? joined(uuids, ",") : joined(indexes, ",")}};
    default: {
      // Level Zero: under FLAT/COMBINED (FLAT is the default) each tile is a root device, so a
      // card is named by its tiles' indexes; under COMPOSITE by its own.
      auto hierarchy = level_zero_hierarchy(env);
      std::vector<std::string> roots;
      if (hierarchy && *hierarchy == "COMPOSITE") {
        roots = indexes;
      } else {
        for (const Device* g : gpus)
          for (int t = 0; t < (g->tiles > 0 ? g->tiles : 1); ++t)
            roots.push_back(std::to_string(g->flat_index + t));
      }
      return {{"ZE_AFFINITY_MASK", joined(roots, ",")}, {"ZE_ENABLE_PCI_ID_DEVICE_ORDER", "1"}};
    }
  }
}

std::string gpu_order_name(const Device& gpu) {
  return gpu.runtime_order.empty()
             ? std::string("PCI bus order (ROCm's own order is not known here)")
             : gpu.runtime_order;
}

std::vector<std::pair<std::string, std::string>> rank_visible_env(
    const std::vector<const Device*>& mine, const std::vector<const Device*>& all,
    const GpuChoice& choice, const Environment& env, std::vector<std::string>& notes) {
  const bool own_first = choice.visibility == GpuVisibility::all_own_first;
  if (own_first)
    notes.push_back(
        "every GPU stays visible, this rank's own first (its device 0): CUDA IPC "
        "and NCCL P2P can reach the other ranks' GPUs");
  if (!mine.empty() && mine.front()->vendor_id == kAmd && mine.front()->runtime_order.empty() &&
      mine.front()->uuid.empty())
    notes.push_back(
        "ROCR_VISIBLE_DEVICES set by PCI bus order: ROCm's order and the GPUs' "
        "UUIDs are not known here, so the rank may be given a different GPU");
  return visible_devices_env(own_first ? own_first_list(mine, all) : mine, env);
}

namespace {

// torchrun's programs pick their GPU by LOCAL_RANK (torch.cuda.set_device(local_rank)):
// narrowing the visible devices would leave rank 1 without a device 1. The bus order makes
// LOCAL_RANK i the GPU i this rank was placed next to (ORDER names that order).
void keep_visible_for_torchrun(GpuAssignment& a, const std::string& order) {
  a.set_env.clear();
  const unsigned vendor = a.mine.front()->vendor_id;
  if (vendor == kNvidia) a.set_env = {{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}};
  if (vendor != kNvidia && vendor != kAmd) a.set_env = {{"ZE_ENABLE_PCI_ID_DEVICE_ORDER", "1"}};
  a.notes.push_back(
      "under torchrun the visible devices are not narrowed: the program picks "
      "its GPU by LOCAL_RANK, which is GPU " +
      std::to_string(a.mine.front()->index) + " in " + order);
}

}  // namespace

Result<GpuAssignment> assign_gpus(const std::vector<Device>& devices, const Environment& env,
                                  const RankIdentity& id, int per_rank, const GpuChoice& choice) {
  std::vector<const Device*> gpus = compute_gpus(devices);
  if (gpus.empty())
    return Error::bad_input("gpus", "no GPU found: the topology lists no NVIDIA, AMD or Intel GPU");
  if (per_rank < 1) return Error::bad_input("gpus", "bad GPU count " + std::to_string(per_rank));
  auto visible = visible_gpus(devices, env, choice.files);
  if (!visible) return visible.error();
  // torchrun's programs address one GPU, cuda:LOCAL_RANK (torch.cuda.set_device(local_rank)):
  // with several per rank, only a list naming each rank's own can place it where it computes.
  if (id.launcher == "torchrun" && per_rank > 1 &&
      (visible->variable.empty() || visible->gpus.size() != static_cast<size_t>(per_rank)))
    return Error::bad_input(
        "gpus", "--gpus " + std::to_string(per_rank) +
                    " under torchrun: its program addresses cuda:LOCAL_RANK, so local rank " +
                    std::to_string(id.local_rank) +
                    " would be placed next to GPUs it does not drive; use "
                    "--gpus 1, or give each rank its own " +
                    std::to_string(per_rank) +
                    " GPUs in the visible-devices variable (plan --export wrapper)");
  GpuAssignment a;
  a.notes = visible->notes;
  const size_t per = static_cast<size_t>(per_rank);
  const size_t need = static_cast<size_t>(id.local_size) * per;
  const size_t first = static_cast<size_t>(id.local_rank) * per;
  const std::string rule =
      std::to_string(id.local_size) + " rank(s) x " + std::to_string(per_rank) + " GPU(s) each";
  if (!visible->variable.empty()) {
    const std::vector<const Device*>& named = visible->gpus;
    const std::string given = visible->variable + "=" + visible->value;
    if (named.size() == per) {
      a.mine = named;
      a.how = given + " (this rank's own)";
    } else if (named.size() >= need) {
      a.mine.assign(named.begin() + static_cast<long>(first),
                    named.begin() + static_cast<long>(first + per));
      a.node_gpus.assign(named.begin(), named.begin() + static_cast<long>(need));
      a.how = given + ", entr" + (per == 1 ? "y " : "ies ") + std::to_string(first) +
              (per == 1 ? "" : "-" + std::to_string(first + per - 1)) + " for local rank " +
              std::to_string(id.local_rank) +
              " (the variable is kept: the program picks by its local rank)";
    } else {
      return Error::bad_input("gpus", given + " names " + std::to_string(named.size()) +
                                          " GPU(s): " + rule + " need either each rank's own " +
                                          std::to_string(per_rank) + " or every rank's " +
                                          std::to_string(need));
    }
    return a;
  }
  if (need > gpus.size())
    return Error::bad_input("gpus",
                            rule + " need " + std::to_string(need) + " GPUs; this node has " +
                                std::to_string(gpus.size()) +
                                " (ranks never share a GPU silently: run fewer ranks per node, or "
                                "give each rank its GPU in " +
                                (gpus.front()->vendor_id == kNvidia ? "CUDA_VISIBLE_DEVICES"
                                 : gpus.front()->vendor_id == kAmd  ? "ROCR_VISIBLE_DEVICES"
                                                                    : "ZE_AFFINITY_MASK") +
                                ")");
  a.mine.assign(gpus.begin() + static_cast<long>(first),
                gpus.begin() + static_cast<long>(first + per));
  a.node_gpus.assign(gpus.begin(), gpus.begin() + static_cast<long>(need));
  const std::string order = gpu_order_name(*a.mine.front());
  a.how = order + ": local rank " + std::to_string(id.local_rank) + " takes GPU " +
          std::to_string(a.mine.front()->index) +
          (per == 1 ? "" : "-" + std::to_string(a.mine.back()->index));
  a.set_env = rank_visible_env(a.mine, gpus, choice, env, a.notes);
  if (id.launcher == "torchrun") keep_visible_for_torchrun(a, order);
  return a;
}

}  // namespace threadmap::cluster
