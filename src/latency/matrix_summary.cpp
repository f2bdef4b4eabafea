#include "src/latency/matrix_summary.hpp"

#include <algorithm>

#include "src/core/sample_stats.hpp"

namespace threadmap::latency {

PairSpread pair_spread(const Matrix& matrix) {
  std::vector<double> values;
  for (std::size_t i = 0; i < matrix.size(); ++i)
    for (std::size_t j = i + 1; j < matrix.size(); ++j)
      if (std::isfinite(matrix.at(i, j))) values.push_back(matrix.at(i, j));
  PairSpread s;
  s.pairs = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.min_ns = values.front();
  s.max_ns = values.back();
  s.median_ns = quantile_of_sorted(values, 0.5);
  s.max_over_min = s.max_ns / std::max(s.min_ns, 1e-9);
  return s;
}

double between_pass_pct(const PairStats& p) {
  if (!p.rechecked) return 0;
  const double mean = (p.median_ns + p.recheck_median_ns) / 2;
  return mean > 0 ? std::abs(p.median_ns - p.recheck_median_ns) / mean * 100 : 0.0;
}

PassAgreement pass_agreement(const Measurement& m) {
  PassAgreement a;
  a.pairs = m.pairs.size();
  std::vector<double> spreads, widths;
  for (std::size_t k = 0; k < m.pairs.size(); ++k) {
    const PairStats& p = m.pairs[k];
    a.converged += p.converged;
    a.samples += p.samples;
    a.unstable += p.unstable;
    a.multimodal += p.multimodal;
    if (p.unstable || p.multimodal) {
      ++a.unsteady;
      if (a.first_unsteady < 0) a.first_unsteady = static_cast<long>(k);
    }
    if (p.rechecked) spreads.push_back(between_pass_pct(p));
    if (p.median_ns > 0) widths.push_back((p.ci_high_ns - p.ci_low_ns) / 2 / p.median_ns * 100);
  }
  a.rechecked = spreads.size();
  if (!spreads.empty()) {
    a.median_spread_pct = median(spreads);
    a.worst_spread_pct = *std::max_element(spreads.begin(), spreads.end());
  }
  if (!widths.empty()) {
    a.median_halfwidth_pct = median(widths);
    a.worst_halfwidth_pct = *std::max_element(widths.begin(), widths.end());
  }
  return a;
}

std::vector<double> block_medians(const Matrix& matrix, const std::vector<std::size_t>& order,
                                  std::size_t block, std::size_t cells) {
  const std::size_t n = order.size();
  std::vector<double> value(cells * cells, std::nan(""));
  std::vector<double> buf;
  for (std::size_t r = 0; r < cells; ++r) {
    for (std::size_t c = 0; c < cells; ++c) {
      buf.clear();
      for (std::size_t i = r * block; i < std::min(n, (r + 1) * block); ++i) {
        for (std::size_t j = c * block; j < std::min(n, (c + 1) * block); ++j) {
          const double v = matrix.at(order[i], order[j]);
          if (order[i] != order[j] && std::isfinite(v)) buf.push_back(v);
        }
      }
      if (!buf.empty()) value[r * cells + c] = median(buf);
    }
  }
  return value;
}

}  // namespace threadmap::latency
