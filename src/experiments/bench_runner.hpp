// What every experiment does around its own work: fill in the bench's identity and the CPUs it
// may use (new_bench), then run its variants' threads where each variant says, in
// interleaved rounds, and collect the samples and counter rows (run_pinned_variants). An
// experiment is then its variants and the body of one run:
//   Result<CpuSet> usable = usable_cpus(topo);
//   if (!usable) return usable.error();
//   BenchResult r = new_bench({"name", "title", "ms", false, "how one sample is", "..."}, *usable);
//   r.variants = ...;
//   PinnedVariantRuns runs;
//   runs.prepare = [&](std::size_t v) { ... };  // the CPUs and the body of one run
//   if (Status st = run_pinned_variants(r, options, runs); !st) return st.error();
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "src/experiments/bench_result.hpp"
#include "src/experiments/experiments.hpp"
#include "threadmap/result.hpp"

namespace threadmap::experiments {

/// What an experiment is and what it reproduces: the fixed part of its BenchResult.
struct BenchIdentity {
  std::string name;   ///< "contention", "smt", ...
  std::string title;  ///< one line saying what is measured
  std::string unit;   ///< unit of one sample ("ms", "op/s", "threads/s")
  bool higher_is_better = false;
  std::string how_measured;  ///< what one sample is
  std::string published;     ///< the published result this reproduces
};

/// A BenchResult with `identity`, and `usable` (from usable_cpus) as its allowed_cpus.
BenchResult new_bench(BenchIdentity identity, const CpuSet& usable);

/// One run of one variant: its threads' CPUs, the work of each thread, and a check of what
/// the work left once every thread has finished (lost increments, a thread's pinning error).
struct PinnedRun {
  std::vector<CpuSet> cpus;                  ///< one per thread; an empty set = the OS decides
  std::function<void(std::size_t)> body;     ///< body(thread index), timed
  std::function<Status()> check_after = {};  ///< may be empty; a failure fails the bench
};

/// How a pinned experiment runs its variants.
struct PinnedVariantRuns {
  /// The run of variant `index` (called once per run, so per-run state starts fresh).
  std::function<PinnedRun(std::size_t index)> prepare;
  /// One sample from the run's wall seconds; default: milliseconds.
  std::function<double(double seconds)> sample = [](double seconds) { return seconds * 1e3; };
  /// Count context switches, migrations, L1d and dTLB misses per run (monitor::ThreadCounters,
  /// outside the timed part) and add them as each available variant's counter rows.
  bool count_events = false;
};

/// The threads of variant v pinned where its ThreadPlacements say, in order.
std::vector<CpuSet> placement_cpus(const Variant& variant);

/// Runs every available variant of `result` through run_interleaved (warm-up, the planned
/// rounds, rounds added while a verdict is unclear): each run is run_pinned on the prepared
/// CPUs, checked, and turned into a sample. Fails with the first failing run's error, naming
/// the variant; the counter rows are added only when every run succeeded.
Status run_pinned_variants(BenchResult& result, const BenchOptions& options,
                           const PinnedVariantRuns& runs);

}  // namespace threadmap::experiments
