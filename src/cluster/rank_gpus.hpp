// Which GPUs a rank drives: the launcher's choice when its environment names them
// (CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES, ZE_AFFINITY_MASK,
// SLURM_STEP_GPUS / SLURM_JOB_GPUS: indexes, UUIDs or MIG ids) mapped back to the physical
// devices, otherwise local rank i takes the i-th GPUs in PCI bus order. Pure functions over the
// device list and an environment map, so every launcher's spelling is unit-tested without a GPU.
// The rules and the traps they avoid are in docs/gpu.md.
#pragma once

#include <string>
#include <vector>

#include "src/cluster/launcher_env.hpp"
#include "src/core/devices.hpp"
#include "threadmap/result.hpp"

namespace threadmap::cluster {

/// The GPUs a visible-devices variable names, in the variable's order.
struct VisibleGpus {
  std::string variable;  ///< "CUDA_VISIBLE_DEVICES", ... ; "" when the environment names none
  std::string value;     ///< its value as given
  std::vector<const Device*> gpus;
  std::vector<std::string> notes;  ///< how the value was read (bus order assumed, relative...)
};

/// What this node's device files say (os::probe_nvidia_device_files); present 0 off-box.
struct NodeDeviceFiles {
  int present = 0;   ///< /dev/nvidiaN files
  int openable = 0;  ///< of those, the ones this process could open
};

/// Reads the variables of the machine's GPU vendor as its runtime reads them (docs/gpu.md):
/// NVIDIA: NVIDIA_VISIBLE_DEVICES (the container's GPUs), then CUDA_VISIBLE_DEVICES inside it,
/// up to its first negative entry; AMD: ROCR_VISIBLE_DEVICES, then GPU_DEVICE_ORDINAL, then
/// HIP_VISIBLE_DEVICES (or CUDA_VISIBLE_DEVICES), each inside the one before; Intel:
/// ZE_AFFINITY_MASK under ZE_FLAT_DEVICE_HIERARCHY; then Slurm's SLURM_STEP_GPUS /
/// SLURM_JOB_GPUS. Under Slurm an index list is read relative to Slurm's list when `files` show
/// a device constraint, absolute when every device file opens, and by assumption (said) when no
/// file says. EINVAL naming the variable, the entry and what exists for: an entry naming no GPU,
/// an index past the end, a repeated GPU, a UUID in another vendor's form or hwloc's bare hex, a
/// tile that does not exist, a list that leaves no GPU, CUDA's fastest-first order on a machine
/// with different GPU models.
Result<VisibleGpus> visible_gpus(const std::vector<Device>& devices, const Environment& env,
                                 const NodeDeviceFiles& files = {});

/// Which GPUs a rank's program sees when threadmap sets the variable.
enum class GpuVisibility {
  narrow,         ///< only the rank's own GPUs
  all_own_first,  ///< every GPU of the node, the rank's own first (CUDA IPC, NCCL P2P)
};

/// "narrow" / "all-own-first" -> the choice; EINVAL naming the value otherwise.
Result<GpuVisibility> parse_gpu_visibility(const std::string& text);

/// The choices assign_gpus takes beyond the rank and its count.
struct GpuChoice {
  GpuVisibility visibility = GpuVisibility::narrow;
  NodeDeviceFiles files;
};

/// This rank's GPUs and how they were chosen.
struct GpuAssignment {
  std::vector<const Device*> mine;  ///< the rank's GPUs (per_rank of them)
  std::string how;                  ///< "CUDA_VISIBLE_DEVICES=3,1, entry 1 for local rank 1"
  /// The variable threadmap sets for the program (CUDA_VISIBLE_DEVICES=2 with
  /// CUDA_DEVICE_ORDER=PCI_BUS_ID, ...); empty when the launcher's variable is kept.
  std::vector<std::pair<std::string, std::string>> set_env;
  /// Every rank's GPUs on this node, rank by rank (per_rank each), when every rank can know them
  /// (bus order, or one list all ranks share); empty when each rank was given its own.
  std::vector<const Device*> node_gpus;
  std::vector<std::string> notes;
};

/// Chooses the GPUs of local rank `id.local_rank` of `id.local_size`, `per_rank` each:
/// - a variable naming exactly per_rank GPUs: those (each rank was given its own);
/// - one naming at least local_size x per_rank: the rank's slice, in the variable's order, and
///   the variable is left as it is (the program picks its GPU by its local rank, as torchrun's
///   LOCAL_RANK convention has it);
/// - none: GPUs rank x per_rank ... in bus order, and the variable is set for the program.
/// Refused (EINVAL, the rule in the message): no GPU on the machine ("no GPU found ..."), more
/// ranks x per_rank than GPUs, a variable naming a number of GPUs between the two, torchrun with
/// several GPUs per rank and no per-rank list (its program addresses one GPU, cuda:LOCAL_RANK).
Result<GpuAssignment> assign_gpus(const std::vector<Device>& devices, const Environment& env,
                                  const RankIdentity& id, int per_rank,
                                  const GpuChoice& choice = {});

/// The name of the order a GPU's index counts in ("CUDA's PCI bus order", "ROCm's order", ...).
std::string gpu_order_name(const Device& gpu);

/// The variables for a rank that drives `mine` of the node's `all` GPUs (in the runtime's order):
/// only its own (narrow), or every GPU with its own first (all_own_first); the notes the choice
/// needs are appended to `notes`.
std::vector<std::pair<std::string, std::string>> rank_visible_env(
    const std::vector<const Device*>& mine, const std::vector<const Device*>& all,
    const GpuChoice& choice, const Environment& env, std::vector<std::string>& notes);

/// The variables that make the program see exactly `gpus`, in that order (vendor by vendor, see
/// docs/gpu.md); `env` gives Level Zero's hierarchy (tiles are numbered under it).
std::vector<std::pair<std::string, std::string>> visible_devices_env(
    const std::vector<const Device*>& gpus, const Environment& env = {});

}  // namespace threadmap::cluster
