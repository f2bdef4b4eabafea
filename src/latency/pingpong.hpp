// One pass over one pair of CPUs: two threads pinned to the pair bounce a cache line, batches of
// round trips are timed, and sampling continues until the median is known to the requested
// precision or the pass's time budget is spent.
#pragma once

#include <cstddef>
#include <vector>

#include "src/latency/measurement.hpp"
#include "threadmap/result.hpp"

namespace threadmap::latency {

/// How one pass samples.
struct PassConfig {
  Method method = Method::cas;
  double precision = 0.03;       ///< stop when the median's 95% CI is within +-precision
  double budget_ns = 200e6;      ///< stop after this much time on the pair (calibration included)
  double min_batch_ns = 20000;   ///< every timed batch lasts at least this long
  std::size_t min_samples = 16;  ///< never judge convergence on fewer batches
  std::size_t max_samples = 4096;
  /// Fixed-iteration mode, the way other tools measure (for comparisons and benchmarks): when
  /// non-zero, every batch has exactly this many round trips (no calibration) ...
  std::size_t fixed_round_trips = 0;
  /// ... and when non-zero, exactly this many batches are timed: no convergence test, no budget.
  std::size_t fixed_samples = 0;
  /// A batch that waits this long for the responder ends the pass with ETIMEDOUT (its CPU is not
  /// running our thread) instead of hanging.
  double stall_ns = 10e9;
};

/// Samples of one pass.
struct PassResult {
  std::vector<double> one_way_ns;  ///< one sample per batch: batch time / round trips / 2
  std::size_t round_trips_per_batch = 0;
  bool converged = false;
  double elapsed_ns = 0;
  int line_numa_node = -1;  ///< NUMA node holding the line's page; -1 unknown
};

/// Measures initiator <-> responder. The initiator thread maps a fresh page, first touches it
/// (so it lives in the initiator's NUMA node and cache) and times the batches; the responder
/// answers each ping. Fails when either CPU cannot be pinned (message names the CPU).
Result<PassResult> measure_pair_pass(int initiator_cpu, int responder_cpu,
                                     const PassConfig& config);

}  // namespace threadmap::latency
