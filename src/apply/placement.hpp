// Turning what the user asked `threadmap run` for (a plan, or CPUs plus a policy, plus skips)
// into PinRules for the pin library. Messages describe the value; the CLI names the flag.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/apply/pin_env.hpp"
#include "src/plan/plan_file.hpp"
#include "src/plan/policy.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::apply {

/// Rules that give the main thread order[0] and the k-th created thread order[(k+1) % n], so
/// any number of threads cycles over the list. Empty order -> no rules.
PinRules rules_from_order(const std::vector<int>& order);

/// Longest thread name Linux keeps (pthread_setname_np rejects longer ones).
inline constexpr size_t kMaxThreadName = 15;

/// Rules from a plan. An assignment named "main" pins the main thread. Without `by_name` the
/// other assignments pin the created threads in creation order (k-th assignment -> slot k);
/// with `by_name` each pins the thread that names itself so (names compared on their first 15
/// characters, glob characters taken literally). An assignment's memory_node goes with it: the
/// main thread's and the creation-order slots' are set when the thread starts, a by-name
/// thread's when it names itself (a thread's memory policy can only be set by the thread
/// itself).
PinRules rules_from_plan(const plan::PlanFile& plan, bool by_name);

/// Adds skip items: digits = creation index ("0" = first thread created), "lib:GLOB" = start
/// routine library (e.g. "lib:libgomp*"), anything else = thread-name glob. EINVAL, naming the
/// item, when one is empty, an index is out of range, "lib:" has no pattern or a glob is
/// malformed (glob_problem).
Status add_skips(PinRules& rules, const std::vector<std::string>& items);

/// What is wrong with a glob pattern, or "" when nothing is: a '[' whose class is never closed
/// (the matchers would take it for a literal '[' and silently match nothing the user meant).
std::string glob_problem(std::string_view pattern);

/// Parses a library rule "GLOB=CPUS" (CPUS resolved on `topology`) and adds it. EINVAL naming
/// the rule when it is not GLOB=CPUS or CPUS does not resolve.
Status add_library_rule(PinRules& rules, const Topology& topology, std::string_view item);

}  // namespace threadmap::apply
