// Anonymous pages and where the kernel put them.
#pragma once

#include <cstddef>

namespace threadmap::os {

/// Maps `bytes` of private anonymous memory (zero-filled, not yet touched). Returns nullptr
/// with errno set (ENOMEM) on failure.
void* map_anonymous(std::size_t bytes);
/// Unmaps memory from map_anonymous().
void unmap(void* address, std::size_t bytes);
/// NUMA node (OS number) of the page holding `address` (move_pages query mode), or -1 when
/// the page is not resident or the kernel has no NUMA support.
int numa_node_of(void* address);

}  // namespace threadmap::os
