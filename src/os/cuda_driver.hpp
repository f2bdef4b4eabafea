// NVIDIA's CUDA driver API, opened at run time (dlopen libcuda.so.1: never linked, never a build
// dependency), for the few calls `bench gpu-locality` makes: the GPUs and their PCI bus ids, a
// context, device memory, page-locking host memory, and synchronous copies each way.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "threadmap/result.hpp"

namespace threadmap::os {

/// One GPU as the driver numbers it (its default order: fastest first).
struct CudaGpu {
  int ordinal = -1;
  std::string bus_id;  ///< "0000:34:00.0"
  std::string name;
};

/// One GPU's context with a device buffer; copies between it and registered host memory.
class CudaCopier {
 public:
  virtual ~CudaCopier() = default;
  /// Page-locks `bytes` at `host` (cuMemHostRegister), so copies are DMA from that memory
  /// where it is, not through a driver staging buffer.
  virtual Status register_host(void* host, std::size_t bytes) = 0;
  virtual void unregister_host(void* host) = 0;
  /// One synchronous copy of `bytes` (at most the device buffer's size); wall seconds.
  virtual Result<double> to_device(const void* host, std::size_t bytes) = 0;
  virtual Result<double> to_host(void* host, std::size_t bytes) = 0;
};

class CudaDriver {
 public:
  virtual ~CudaDriver() = default;
  /// Opens libcuda.so.1 and calls cuInit. ENOENT "no CUDA driver (libcuda.so.1 not found)"
  /// when the library is absent; EIO with the driver's message when cuInit fails (no GPU, a
  /// driver/library mismatch).
  static Result<std::unique_ptr<CudaDriver>> open();
  virtual std::vector<CudaGpu> gpus() const = 0;
  /// A context on GPU `ordinal` with `bytes` of device memory. EIO with the driver's message.
  virtual Result<std::unique_ptr<CudaCopier>> copier(int ordinal, std::size_t bytes) = 0;
};

}  // namespace threadmap::os
