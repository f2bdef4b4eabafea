// What the kernel says about GPUs beyond the PCI tree: the KFD topology ROCm enumerates its GPUs
// from (/sys/class/kfd/kfd/topology/nodes/*/properties), and which NVIDIA device files
// (/dev/nvidiaN) this process may open -- under Slurm's ConstrainDevices a cgroup device rule
// makes the others fail to open, which is how a job step's CUDA_VISIBLE_DEVICES is numbered.
// The parsers are pure (unit-tested on authored snapshots); the readers take a root directory.
#pragma once

#include <string>
#include <vector>

#include "threadmap/result.hpp"

namespace threadmap::os {

/// One GPU node of the KFD topology, in node order (ROCr's agent order).
struct KfdGpu {
  int node = -1;                     ///< the node directory's number
  std::string bus_id;                ///< "0000:c1:00.0", from domain and location_id
  unsigned long long unique_id = 0;  ///< ROCm's unique id (0 when the file has none)
};

/// Parses one node's properties text ("key value" lines); false for a CPU node (no SIMDs) or a
/// text without location_id.
bool parse_kfd_properties(const std::string& text, KfdGpu& out);

/// The GPU nodes under ROOT/sys/class/kfd/kfd/topology/nodes, by node number. ENOENT when there
/// is no KFD (no amdgpu driver).
Result<std::vector<KfdGpu>> read_kfd_gpus(const std::string& root = "");

/// The NVIDIA GPU device files here and which of them this process could open.
struct NvidiaDeviceFiles {
  int present = 0;   ///< /dev/nvidia<N> files
  int openable = 0;  ///< of those, the ones open() accepted
};

/// Counts ROOT/dev/nvidia<N> and tries each (O_RDONLY, closed at once: opening one starts
/// nothing on the GPU).
NvidiaDeviceFiles probe_nvidia_device_files(const std::string& root = "");

}  // namespace threadmap::os
