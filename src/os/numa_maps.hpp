// Where a process's pages are, per NUMA node, from /proc/PID/numa_maps (one line per mapping:
// "ADDRESS POLICY ... N0=12 N1=3 kernelpagesize_kB=2048"). The parser is pure (unit-tested on
// recorded text); read_numa_pages() is the one reader.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "threadmap/result.hpp"

namespace threadmap::os {

/// Resident pages on one node (OS node number), summed over every mapping.
struct NodePages {
  int node = -1;
  std::uint64_t pages = 0;       ///< pages of any size (a 2 MiB huge page counts once)
  std::uint64_t bytes = 0;       ///< pages x their kernelpagesize_kB
  std::uint64_t huge_pages = 0;  ///< of `pages`, those larger than 4 KiB
};

/// A process's pages per node, nodes ascending (only nodes holding pages appear).
struct NumaPages {
  std::vector<NodePages> nodes;
  std::uint64_t total_pages() const;
  std::uint64_t total_bytes() const;
};

/// Parses numa_maps text. Tokens it does not know (policy, file=, anon=, dirty=, mapmax=, ...)
/// are skipped; a mapping without kernelpagesize_kB counts 4 KiB pages; a malformed Nx=y token
/// is skipped. Never fails: an empty text gives no nodes.
NumaPages parse_numa_maps(std::string_view text);

/// "/proc/PID/numa_maps": where the readings come from, for the evidence line.
std::string numa_maps_path(pid_t pid);

/// Reads and parses /proc/PID/numa_maps. ESRCH when the process is gone (or its memory is
/// already torn down: an exited process has no mappings, so an empty file is ESRCH too), EACCES
/// when not permitted, ENOENT when the kernel has no NUMA support.
Result<NumaPages> read_numa_pages(pid_t pid);

}  // namespace threadmap::os
