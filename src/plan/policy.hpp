// The one CPU policy engine: the order in which compact, scatter and round-robin hand out CPUs.
// `threadmap run --cpus X --policy P` pins its threads in this order, and `threadmap plan
// --threads N --policy P` assigns it, so both commands choose the same CPUs for the same request.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::plan {

/// How threads are spread over a set of CPUs.
enum class Policy {
  compact,      ///< fill in topology order: SMT siblings and cores sharing caches first
  scatter,      ///< spread: one per package, then per L3, then per core, SMT siblings last
  round_robin,  ///< ascending OS CPU numbers
};

/// Parses "compact", "scatter" or "round-robin". On failure EINVAL: "unknown policy 'TEXT'
/// (expected compact, scatter or round-robin)".
Result<Policy> parse_policy(std::string_view text);

/// The name parse_policy accepts for `policy` ("round-robin", ...).
const char* policy_name(Policy policy);

/// Every name parse_policy accepts, in the enum's order (the CLI's --help, man pages and shell
/// completion list these).
const std::vector<std::string>& policy_names();

/// The CPUs of `cpus` in the order `policy` hands them to threads (main thread first). CPUs
/// the topology does not know are placed last, in ascending order. Never fails; an empty set
/// gives an empty order.
std::vector<int> order_cpus(const Topology& topology, const CpuSet& cpus, Policy policy);

/// The CPU of each of `threads` threads (thread 0 = the main thread) when they take `order` in
/// turn and cycle over it when there are more threads than CPUs: thread t gets
/// order[t % order.size()]. Empty when `order` is empty.
std::vector<int> cpus_for_threads(const std::vector<int>& order, std::size_t threads);

}  // namespace threadmap::plan
