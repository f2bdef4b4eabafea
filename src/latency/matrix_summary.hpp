// The numbers a page or table shows about a matrix and the measurement behind it, computed here
// so that render only draws them: the spread of the pairs (min, median, max), how well the
// passes agreed (unsteady pairs, between-pass spread, within-run precision), and a large matrix
// shrunk to blocks for a narrow screen.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "src/latency/matrix.hpp"
#include "src/latency/measurement.hpp"

namespace threadmap::latency {

/// The finite values above the diagonal (one per CPU pair): how many, smallest, median, largest
/// (NaN when there are none).
struct PairSpread {
  std::size_t pairs = 0;
  double min_ns = NAN;
  double median_ns = NAN;
  double max_ns = NAN;
  double max_over_min = NAN;  ///< how much farther the farthest pair is than the nearest
};
PairSpread pair_spread(const Matrix& matrix);

/// How far the two passes' medians of a pair lie apart, % of their mean (0 without a recheck).
double between_pass_pct(const PairStats& pair);

/// How a measurement held still, over its pairs.
struct PassAgreement {
  std::size_t pairs = 0;
  std::size_t converged = 0;   ///< converged to the precision asked
  std::size_t unstable = 0;    ///< passes disagree
  std::size_t multimodal = 0;  ///< separate modes
  std::size_t unsteady = 0;    ///< unstable or multimodal
  std::size_t rechecked = 0;   ///< pairs measured in a second pass
  std::size_t samples = 0;     ///< timed batches of the first passes, all pairs
  /// Between-pass spread (between_pass_pct) of the rechecked pairs: median and worst; 0 when
  /// none was rechecked.
  double median_spread_pct = 0;
  double worst_spread_pct = 0;
  /// Within-run 95% interval half-width, % of the median: median and worst over the pairs with
  /// a median; NaN when none has one.
  double median_halfwidth_pct = NAN;
  double worst_halfwidth_pct = NAN;
  /// The first unsteady pair (index into Measurement::pairs), or -1.
  long first_unsteady = -1;
};
PassAgreement pass_agreement(const Measurement& measurement);

/// A matrix shown in `cells` x `cells` blocks of `block` CPUs each (CPUs in `order`): each
/// cell the median of its block's pairs, the diagonal and unknown values left out (NaN when
/// none is left). Row-major, cells * cells values.
std::vector<double> block_medians(const Matrix& matrix, const std::vector<std::size_t>& order,
                                  std::size_t block, std::size_t cells);

}  // namespace threadmap::latency
