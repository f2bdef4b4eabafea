// `threadmap bench gpu-locality`: host-to-device and device-to-host copy bandwidth from
// page-locked host memory placed on each NUMA node in turn, interleaved round by round and judged
// by the verdict rule, so "memory next to the GPU is faster" is measured on the user's machine,
// not assumed. The CUDA driver is opened at run time (os::CudaDriver); without it the bench says
// "not supported" and nothing else.
#pragma once

#include <functional>
#include <memory>

#include "src/experiments/experiments.hpp"
#include "src/os/cuda_driver.hpp"

namespace threadmap::experiments {

struct GpuLocalityOptions : BenchOptions {
  /// Bytes per copy (the host buffer on each node and the device buffer); 0: 256 MiB, 64 MiB
  /// with `quick`.
  std::size_t bytes = 0;
  /// Opens the driver; empty: os::CudaDriver::open (tests pass a fake).
  std::function<Result<std::unique_ptr<os::CudaDriver>>()> open_driver;
};

/// One GPU -- the first in PCI bus order among those the driver lists -- and, for every NUMA node
/// with memory, two variants: "h2d-nodeN" and "d2h-nodeN" (GB/s, higher is better), each compared
/// with the same direction from the GPU's own node (from the topology's devices; the lowest node
/// when the GPU has none). The copying thread runs on the GPU's local CPUs throughout, so only the
/// memory's place differs. One node: nothing to compare, the bandwidth is still reported (a note
/// says so). Unavailable (not an error) without a driver or a GPU.
Result<BenchResult> run_gpu_locality(const Topology& topo, const GpuLocalityOptions& options);

}  // namespace threadmap::experiments
