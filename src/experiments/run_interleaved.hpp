// The loop every experiment shares: one unrecorded warm-up round, then `runs` rounds, each
// running every available variant once, so slow drift (turbo, other processes) is spread over
// all variants instead of biasing whichever ran last. Samples land in Variant::value.
#pragma once

#include <cstddef>
#include <functional>

#include "src/experiments/bench_result.hpp"
#include "src/experiments/experiments.hpp"
#include "threadmap/result.hpp"

namespace threadmap::experiments {

/// Runs variant `index` once and returns its sample in the bench's unit. `record` is false
/// for the warm-up round (its side measurements should be dropped too).
using RunOnce = std::function<Result<double>(std::size_t index, bool record)>;

/// Runs the rounds, reports "NAME: run R of N" through options.progress, summarizes samples and
/// computes ratios and verdicts. While a verdict is unclear and more samples could settle it,
/// adds interleaved rounds within the budget of `options` (result.rounds says how many and
/// why it stopped). Watches the machine around the rounds (result.machine_state) unless
/// options.watch_machine is false. Stops at the first failing run and returns its error,
/// naming the variant.
Status run_interleaved(BenchResult& result, const BenchOptions& options, const RunOnce& once);

}  // namespace threadmap::experiments
