// A CPU expression someone gave (a flag's value), resolved on a topology with the one rule every
// command applies to it: one that does not resolve, or that names no CPU, is the value's fault
// (an empty set must not quietly mean "every CPU" to the call it is handed to).
#pragma once

#include <string>

#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap {

/// `expression` resolved on `topology` (Topology::resolve). Fails with Fault::input about
/// request member `member`: the resolver's message, or "the CPU set 'EXPR' is empty".
inline Result<CpuSet> resolve_given_cpus(const Topology& topology, const std::string& expression,
                                         const std::string& member) {
  auto cpus = topology.resolve(expression);
  if (!cpus) return cpus.error().as_bad_input(member);
  if (cpus->empty()) return Error::bad_input(member, "the CPU set '" + expression + "' is empty");
  return cpus;
}

}  // namespace threadmap
