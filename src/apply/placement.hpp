// Turning what the user asked `threadmap run` for (a plan, or CPUs plus a policy, plus skips)
// into PinRules for the pin library.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/apply/pin_env.hpp"
#include "src/apply/plan_file.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::apply {

/// How threads are spread over the CPUs of --cpus.
enum class Policy {
  compact,      ///< fill in topology order: SMT siblings and cores sharing caches first
  scatter,      ///< spread: one per package, then per L3, then per core, SMT siblings last
  round_robin,  ///< ascending OS CPU numbers
};

/// Parses "compact", "scatter" or "round-robin". EINVAL naming the text otherwise.
Result<Policy> parse_policy(std::string_view text);

/// The CPUs of `cpus` in the order `policy` hands them to threads (main thread first).
/// CPUs the topology does not know are placed last, in ascending order.
std::vector<int> order_cpus(const Topology& topology, const CpuSet& cpus, Policy policy);

/// Rules that give the main thread order[0] and the k-th created thread order[(k+1) % n], so
/// any number of threads cycles over the list. Empty order -> no rules.
PinRules rules_from_order(const std::vector<int>& order);

/// Longest thread name Linux keeps (pthread_setname_np rejects longer ones).
inline constexpr size_t kMaxThreadName = 15;

/// Rules from a plan. An assignment named "main" pins the main thread. Without `by_name` the
/// other assignments pin the created threads in creation order (k-th assignment -> slot k);
/// with `by_name` each pins the thread that names itself so (names compared on their first 15
/// characters, glob characters taken literally).
PinRules rules_from_plan(const PlanFile& plan, bool by_name);

/// Adds --skip items: digits = creation index ("0" = first thread created), "lib:GLOB" = start
/// routine library (e.g. "lib:libgomp*"), anything else = thread-name glob. EINVAL when empty.
Status add_skips(PinRules& rules, const std::vector<std::string>& items);

/// Parses a --lib item "GLOB=CPUS" (CPUS resolved on `topology`) and adds it.
Status add_library_rule(PinRules& rules, const Topology& topology, std::string_view item);

}  // namespace threadmap::apply
