// Where a program's memory goes: `threadmap run --mem local|interleave[:NODES]|bind:NODES|
// preferred:NODE`, parsed and checked against the machine's NUMA nodes before anything starts,
// then applied by the pin preload (set_mempolicy in every thread before user code).
//
// Node numbers are the OS's (numactl, /sys/devices/system/node/nodeN, set_mempolicy masks),
// never hwloc's logical indexes: on a Dell R740 in SNC2 mode they differ.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/preload/common/tm_pin_limits.h"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::apply {

/// The set_mempolicy modes `--mem` offers (numactl's --localalloc, --interleave, --membind,
/// --preferred).
enum class MemoryMode { local, interleave, bind, preferred };

/// A memory policy. `nodes` are OS node numbers, ascending, without duplicates; empty for
/// local, and for interleave without a list until check_memory_policy() fills in every node.
struct MemoryPolicy {
  MemoryMode mode = MemoryMode::local;
  std::vector<int> nodes;
};

/// Highest node number accepted (the kernel's MAX_NUMNODES is at most 1024).
inline constexpr int kMaxMemoryNode = TM_PIN_MAX_NODE;  // the pin library's limit

/// Parses the syntax only: "local", "interleave", "interleave:NODES", "bind:NODES",
/// "preferred:NODE"; NODES = "all" or N / A-B items joined by ',' (numactl's node lists).
/// EINVAL naming the bad part.
Result<MemoryPolicy> parse_memory_policy(std::string_view text);

/// Checks every node exists among `nodes` (the machine's, Topology::numa_nodes()) and gives
/// "interleave"/"all" the full node list. EINVAL "node 7 does not exist on this machine (nodes:
/// 0-1)". A machine whose topology lists no NUMA node counts as one node, 0.
Status check_memory_policy(MemoryPolicy& policy, const std::vector<NumaNode>& nodes);

/// parse_memory_policy + check_memory_policy on `topology`.
Result<MemoryPolicy> memory_policy_for(std::string_view text, const Topology& topology);

/// "local", "interleave", "bind", "preferred".
const char* memory_mode_name(MemoryMode mode);

/// The forms parse_memory_policy accepts, a placeholder in capitals where the user writes a
/// node list: "local", "interleave", "interleave:NODES", "bind:NODES", "preferred:NODE".
const std::vector<std::string>& memory_policy_forms();

/// The TM_PIN_CONFIG value of the mem= entry: "local", "bind:0,2-3", ...
std::string encode_memory_policy(const MemoryPolicy& policy);

/// One line for `run --verbose`: "memory policy: bind to node 0 (set_mempolicy in every
/// thread)" plus "; no-op on a 1-node machine" when `machine_nodes` is 1.
std::string describe_memory_policy(const MemoryPolicy& policy, int machine_nodes);

}  // namespace threadmap::apply
