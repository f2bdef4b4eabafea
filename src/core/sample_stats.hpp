// The one median and the one quantile every layer uses (a matrix's spread, a fleet's typical
// value, a domain's latency, a pair's samples): order statistics, because the numbers we
// summarise (latencies, run times) are skewed and a mean would be pulled by the slow tail.
// The verdict's tests and intervals are in verdict_stats.hpp, built on these.
#pragma once

#include <vector>

namespace threadmap {

/// Value at quantile `q` (0..1) of ascending `sorted`, linearly interpolated between the two
/// closest ranks (R's type 7, numpy's default); 0 for no values.
double quantile_of_sorted(const std::vector<double>& sorted, double q);

/// The median of `values` (any order): the middle value, or the mean of the two middle values
/// for an even count; NaN for no values.
double median(std::vector<double> values);

}  // namespace threadmap
