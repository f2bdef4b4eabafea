// Internal: conversions between CpuSet and the kernel's cpu_set_t, sized with CPU_ALLOC so any
// CPU count works. This and affinity.cpp / proc_threads.cpp are the only files that talk to
// the kernel.
#pragma once

#include <sched.h>

#include <memory>

#include "threadmap/cpuset.hpp"

namespace threadmap::detail {

struct KernelMaskFree {
  void operator()(cpu_set_t* m) const { CPU_FREE(m); }
};
using KernelMask = std::unique_ptr<cpu_set_t, KernelMaskFree>;

/// Number of CPUs a kernel mask must cover to hold `set` and to read back any thread's mask.
int kernel_mask_cpus(const CpuSet& set);
/// Allocates a mask for `ncpus` CPUs holding `set`; `bytes` receives its size.
KernelMask to_kernel_mask(const CpuSet& set, int ncpus, size_t& bytes);
/// Reads a kernel mask of `bytes` bytes into a CpuSet.
CpuSet from_kernel_mask(const cpu_set_t* mask, size_t bytes);

}  // namespace threadmap::detail
