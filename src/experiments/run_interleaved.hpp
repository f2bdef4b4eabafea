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
/// computes ratios. Stops at the first failing run and returns its error, naming the variant.
Status run_interleaved(BenchResult& result, const BenchOptions& options, const RunOnce& once);

}  // namespace threadmap::experiments
