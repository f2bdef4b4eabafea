// Where each experiment puts its threads, as pure functions of (topology, usable CPUs), so the
// choices are tested on recorded machines (SMT-2 EPYCs, hybrids, multi-socket) and not only on
// the machine the tests happen to run on.
#pragma once

#include <string>
#include <vector>

#include "src/experiments/bench_result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::experiments {

/// The variants of an experiment and the caveats of this placement.
struct VariantPlan {
  std::vector<Variant> variants;
  std::vector<std::string> notes;
};

/// contention: "os" (4 threads unpinned), "one-core" (each pair on the two SMT siblings of one
/// core, else both threads on one CPU; the pairs on different cores when possible),
/// "far-apart" (each pair on the farthest pair of CPUs, the second pair on the farthest pair of
/// the remaining CPUs). `usable` must not be empty.
VariantPlan plan_contention(const Topology& topo, const CpuSet& usable);

/// smt: for each workload ("accumulate", "sin"): "-alone", "-two-cores" (the closest two CPUs
/// on different cores), "-smt-siblings" (two PUs of one core); unavailable with the reason where
/// the machine cannot provide them. `usable` must not be empty.
VariantPlan plan_smt(const Topology& topo, const CpuSet& usable);

}  // namespace threadmap::experiments
