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

/// Reads the first variable the machine's GPU vendor answers to (NVIDIA: CUDA_VISIBLE_DEVICES;
/// AMD: ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES inside it; Intel: ZE_AFFINITY_MASK), then
/// Slurm's SLURM_STEP_GPUS / SLURM_JOB_GPUS. Under Slurm a vendor variable that differs from
/// Slurm's list is read relative to it (Slurm's ConstrainDevices numbering). EINVAL naming the
/// variable and the entry when an entry names no GPU here, when the value is empty (the program
/// would see no GPU), or when an index cannot be mapped (CUDA's default fastest-first order on
/// a machine with different GPU models).
Result<VisibleGpus> visible_gpus(const std::vector<Device>& devices, const Environment& env);

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
/// ranks x per_rank than GPUs, a variable naming a number of GPUs between the two.
Result<GpuAssignment> assign_gpus(const std::vector<Device>& devices, const Environment& env,
                                  const RankIdentity& id, int per_rank);

/// The variables that make the program see exactly `gpus` (vendor by vendor, see docs/gpu.md).
std::vector<std::pair<std::string, std::string>> visible_devices_env(
    const std::vector<const Device*>& gpus);

}  // namespace threadmap::cluster
