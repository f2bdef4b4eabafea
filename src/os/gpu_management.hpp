// The GPU vendors' management libraries, opened at run time only (dlopen; never a build or link
// dependency): NVIDIA's NVML (libnvidia-ml.so.1) and AMD's ROCm SMI (librocm_smi64.so). They
// give what the PCI tree cannot: the index nvidia-smi / rocm-smi print, the UUID the
// visible-devices variables accept, and NVIDIA's MIG instances. A machine without them (no
// driver, a container without the library) is normal: the report says why there is nothing.
#pragma once

#include <string>
#include <vector>

namespace threadmap::os {

/// One MIG instance of an NVIDIA GPU (NVML's MIG device handle).
struct MigInstance {
  int index = -1;    ///< the MIG device index on its GPU
  std::string uuid;  ///< "MIG-..." as CUDA_VISIBLE_DEVICES accepts it
};

/// One GPU as its management library lists it.
struct ManagedGpu {
  std::string bus_id;            ///< "0000:34:00.0" (lower case, 4-digit domain when it fits)
  int index = -1;                ///< the library's index (nvidia-smi -L, rocm-smi)
  std::string uuid;              ///< "GPU-..." (NVML) or "GPU-<16 hex digits>" (ROCm unique id)
  std::string name;              ///< the model, as the library names it
  std::vector<MigInstance> mig;  ///< MIG instances, when MIG mode is on (NVML only)
};

/// What one library said.
struct ManagementReport {
  std::string library;  ///< "NVML (libnvidia-ml.so.1)", "ROCm SMI (librocm_smi64.so)"
  bool loaded = false;  ///< the library was found and initialised
  std::string why_not;  ///< when !loaded: "libnvidia-ml.so.1 not found", the init error...
  std::vector<ManagedGpu> gpus;
};

/// NVML's GPUs (index, bus id, UUID, name, MIG instances). Never fails: a missing library or a
/// failed nvmlInit is a report with loaded = false and the reason.
ManagementReport query_nvml();

/// ROCm SMI's GPUs (index, bus id, unique id as "GPU-%016llx", name). As query_nvml.
ManagementReport query_rocm_smi();

/// "00000000:3B:00.0" (NVML's 8-digit domain, upper case) -> "0000:3b:00.0"; a bus id already
/// in that form is returned lower-cased. "" when the text is not a PCI bus id.
std::string normalized_bus_id(const std::string& text);

}  // namespace threadmap::os
