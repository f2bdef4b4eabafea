// Memory placed on one NUMA node on purpose (mbind MPOL_BIND, then touched and checked), for
// measurements that compare nodes: `bench gpu-locality` copies from host memory on each node in
// turn.
#pragma once

#include <cstddef>

#include "threadmap/result.hpp"

namespace threadmap::os {

/// Maps `bytes` of anonymous memory bound to OS NUMA node `node` (MPOL_BIND), touches every page
/// so the kernel places them now, and checks that the first and last pages landed there. Fails
/// with the kernel's reason (EINVAL: no such node; ENOMEM) or EIO naming the node the pages went
/// to instead. Free it with os::unmap (memory.hpp).
Result<void*> map_on_node(std::size_t bytes, int node);

}  // namespace threadmap::os
