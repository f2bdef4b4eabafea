// The seed experiments behind `threadmap bench` (see docs/design.md, "The experiments we
// reproduce"). Each runs its variants side by side on this machine, interleaved run by run so
// drift (frequency, other load) hits every variant alike, and returns a BenchResult. None of
// them prints; progress goes through the optional callback.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "src/experiments/bench_result.hpp"
#include "src/experiments/variant_placement.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::experiments {

/// Options every experiment takes.
struct BenchOptions {
  int runs = 5;        ///< samples per variant; the table shows their median
  bool quick = false;  ///< short mode: less work per run, for CI and `report --quick`
  /// Called with a short line before each phase ("contention: run 2 of 5"); may be empty.
  std::function<void(const std::string&)> progress;
  /// The budget for settling unclear verdicts: after the planned rounds, while a variant's
  /// verdict against its baseline is unclear and more samples could settle it, one more
  /// interleaved round is run as long as the added rounds' time stays within
  /// added_time_factor x the planned rounds' time and the rounds in all stay within max_runs
  /// (20: the exact rank test's range). The added time may always reach min_added_s, so that
  /// quick benches whose rounds take milliseconds still get a chance. 0 = never add rounds.
  double added_time_factor = 2.0;
  double min_added_s = 1.0;
  int max_runs = 20;
  /// Watch the machine (load, steal, neighbours) around the rounds; the idle window before
  /// them, in which threadmap sleeps to see what the others do, lasts this long.
  bool watch_machine = true;
  int idle_window_ms = 200;
  /// This bench's share of a stated time budget (`report --budget`), in seconds; 0 = none.
  /// Within it the bench stops by its own rule: planned rounds stop when the next would not fit
  /// (never before min(3, runs) rounds: fewer can never give a clear verdict), added rounds get
  /// at most what is left; the spawn bench also shortens each run to fit its rounds.
  double share_s = 0;
  /// Seconds on a monotonic clock; empty = the steady clock (tests give a fake one).
  std::function<double()> clock_s;
};

/// The CPUs the experiments may use on `topo`: its allowed set, intersected with this
/// process's affinity. Fails when `topo` was not loaded from this machine (an XML file cannot
/// be benchmarked) or nothing is left.
Result<CpuSet> usable_cpus(const Topology& topo);

/// Two pairs of threads, each pair incrementing its own cache-line-aligned atomic 100,000
/// times per thread: OS placement (baseline) vs each pair on one core (its SMT siblings, else
/// one CPU) vs each pair split across the farthest CPUs. Unit: ms, lower is better.
Result<BenchResult> run_contention(const Topology& topo, const BenchOptions& options);

/// Where the ping-pong pairs come from.
struct PingpongOptions : BenchOptions {
  std::optional<CpuPair> pair;  ///< measure only this pair (the user's --pair A,B)
  /// One-way latencies (ns) of CPU pairs, to pick the best and worst pair; empty = pick by
  /// topology. Filled by the caller from a latency matrix.
  struct Latency {
    int cpu_a, cpu_b;
    double one_way_ns;
  };
  std::vector<Latency> latencies;
  std::string latency_source;              ///< where `latencies` came from, for the notes
  std::vector<std::string> latency_notes;  ///< caveats about that source, copied to the notes
};

/// Two threads hand two counters back and forth; op/s for the best and worst pair by latency
/// and for the "sequential" pair (n, n+1), the baseline a numbering-based choice gives.
/// Unit: op/s (one op = one hand-off), higher is better.
Result<BenchResult> run_pingpong(const Topology& topo, const PingpongOptions& options);

/// Accumulate (add-latency bound) and sum-of-sin (FP-throughput bound) workloads: alone, on
/// two cores, on two SMT siblings of one core (unavailable, with the reason, without SMT).
/// Unit: ms per thread's workload, lower is better; each workload's baseline is "alone".
Result<BenchResult> run_smt(const Topology& topo, const BenchOptions& options);

/// Threads sorting 10,000 ints per round: left to the OS (baseline), pinned one CPU each, and
/// hopping to a random other CPU before every round. Counters: context switches and CPU
/// migrations (perf software counters, else getrusage), L1d and dTLB read misses (perf
/// hardware cache counters, "not supported" where missing). Unit: ms, lower is better.
Result<BenchResult> run_migrate(const Topology& topo, const BenchOptions& options);

/// Where the spawn benchmark's programs are.
struct SpawnOptions : BenchOptions {
  std::string spawn_binary;   ///< bin/threadmap-spawn
  std::string cache_library;  ///< lib/libthreadmap-cache.so
};

/// Create+join rate of bin/threadmap-spawn with 1 and with N creators (N = usable CPUs),
/// without (baseline) and with the thread cache preloaded. Unit: threads/s, higher is better.
/// Returns an unavailable result, with the reason, when either program is missing.
Result<BenchResult> run_spawn(const Topology& topo, const SpawnOptions& options);

/// The spawn bench's note on the cache against the hand-off floor measured in the same rounds:
/// "N: the cache runs at X% of the hand-off floor ..." when the verdict on the rounds is clear,
/// both ranges when not, and "the hand-off floor collapsed (...)", with no comparison, when the
/// floor measured fewer round trips/s than glibc's own creates/s (its pair of threads did not
/// get a CPU each: a busy machine). `glibc`, `cache`, `floor` are one creator count's variants.
std::string cache_against_floor(const Variant& glibc, const Variant& cache, const Variant& floor);

/// Paths of bin/threadmap-spawn and libthreadmap-cache.so found the way `run` finds the preload
/// libraries (src/os/install_layout.hpp); a path is empty when the file is not found.
SpawnOptions locate_spawn_tools();

}  // namespace threadmap::experiments
