// Order statistics. The CI of the median is core's median_interval (normal approximation to the
// binomial, ranks n/2 -+ 1.96 * sqrt(n) / 2: accurate from ~20 samples on and conservative
// below); no distributional assumption about the latencies themselves.
#include "src/latency/stats.hpp"

#include <algorithm>
#include <cmath>

#include "src/core/sample_stats.hpp"
#include "src/core/verdict.hpp"

namespace threadmap::latency {
namespace {

// Median absolute deviation of sorted[first, last).
double mad(const std::vector<double>& sorted, std::size_t first, std::size_t last) {
  std::vector<double> part(sorted.begin() + static_cast<long>(first),
                           sorted.begin() + static_cast<long>(last));
  double med = quantile_of_sorted(part, 0.5);
  for (double& v : part) v = std::fabs(v - med);
  std::sort(part.begin(), part.end());
  return quantile_of_sorted(part, 0.5);
}

}  // namespace

SampleSummary summarize(std::vector<double> samples) {
  SampleSummary s;
  s.count = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.median = quantile_of_sorted(samples, 0.5);
  s.min = samples.front();
  s.max = samples.back();
  s.p90 = quantile_of_sorted(samples, 0.9);
  // The distribution-free interval of the median: core's rule, shared with every verdict.
  const MedianInterval interval = median_interval(samples);
  s.ci_low = interval.low;
  s.ci_high = interval.high;
  return s;
}

bool is_converged(const SampleSummary& summary, double precision) {
  if (summary.count < 6 || summary.median <= 0) return false;
  return summary.ci_low >= summary.median * (1 - precision) &&
         summary.ci_high <= summary.median * (1 + precision);
}

bool intervals_disagree(double low_a, double high_a, double low_b, double high_b) {
  return high_a < low_b || high_b < low_a;
}

Modality find_modes(std::vector<double> samples) {
  Modality m;
  if (samples.empty()) return m;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  const std::size_t min_side = std::max<std::size_t>(3, n / 10);
  // Widest gap (relative, so the test reads the same at 5 ns and at 500 ns) between
  // neighbouring samples with enough samples on both sides.
  std::size_t best = 0;
  double best_ratio = 1;
  for (std::size_t k = min_side; k + min_side <= n; ++k) {
    double lower = std::max(samples[k - 1], 1e-9);
    double ratio = samples[k] / lower;
    if (ratio > best_ratio) {
      best_ratio = ratio;
      best = k;
    }
  }
  if (best == 0) {
    m.modes = {quantile_of_sorted(samples, 0.5)};
    return m;
  }
  std::vector<double> low(samples.begin(), samples.begin() + static_cast<long>(best));
  std::vector<double> high(samples.begin() + static_cast<long>(best), samples.end());
  double low_median = quantile_of_sorted(low, 0.5);
  double high_median = quantile_of_sorted(high, 0.5);
  double gap = samples[best] - samples[best - 1];
  double spread = std::max(mad(samples, 0, best), mad(samples, best, n));
  if (high_median >= 1.25 * low_median && gap > 2 * spread) {
    m.multimodal = true;
    m.modes = {low_median, high_median};
  } else {
    m.modes = {quantile_of_sorted(samples, 0.5)};
  }
  return m;
}

}  // namespace threadmap::latency
