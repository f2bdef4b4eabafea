// The rank test, the median intervals and the three criteria of verdict.hpp. Rank tests
// because run times on a shared machine are skewed (a neighbour or the host only ever adds
// time) and a t-test's normality does not hold; medians for the same reason.
#include "src/core/verdict.hpp"

#include <algorithm>
#include <cmath>

#include "src/core/format_text.hpp"

namespace threadmap {
namespace {

double median_of_sorted(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  if (n == 0) return 0;
  return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

// Number of arrangements of n1 + n2 ranks whose U statistic (pairs a < b) equals each u, by
// the recurrence count(n1, n2, u) = count(n1 - 1, n2, u - n2) + count(n1, n2 - 1, u).
std::vector<double> u_distribution(std::size_t n1, std::size_t n2) {
  // table[i][j] = distribution for (i, j), built row by row.
  std::vector<std::vector<std::vector<double>>> table(n1 + 1,
                                                      std::vector<std::vector<double>>(n2 + 1));
  for (std::size_t i = 0; i <= n1; ++i) {
    for (std::size_t j = 0; j <= n2; ++j) {
      std::vector<double>& d = table[i][j];
      d.assign(i * j + 1, 0);
      if (i == 0 || j == 0) {
        d[0] = 1;
        continue;
      }
      const std::vector<double>& without_a = table[i - 1][j];  // largest value is from b
      const std::vector<double>& without_b = table[i][j - 1];  // largest value is from a
      for (std::size_t u = 0; u < without_b.size(); ++u) d[u] += without_b[u];
      // The largest value coming from a puts it above all j values of b: U grows by j.
      for (std::size_t u = 0; u < without_a.size(); ++u) d[u + j] += without_a[u];
    }
  }
  return table[n1][n2];
}

std::string percent(double fraction) { return format_text("%.0f%%", fraction * 100); }

}  // namespace

MedianInterval median_interval(std::vector<double> samples) {
  MedianInterval m;
  if (samples.empty()) return m;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  m.median = median_of_sorted(samples);
  if (n < 6) {
    m.low = samples.front();
    m.high = samples.back();
    return m;
  }
  // Ranks n/2 -+ 1.96 * sqrt(n) / 2 (normal approximation to the binomial), rounded outwards.
  const double half_width = 1.96 * std::sqrt(static_cast<double>(n)) / 2.0;
  auto low_rank = static_cast<long>(std::floor(static_cast<double>(n) / 2.0 - half_width));
  auto high_rank = static_cast<long>(std::ceil(static_cast<double>(n) / 2.0 + half_width)) + 1;
  low_rank = std::clamp(low_rank, 1L, static_cast<long>(n));
  high_rank = std::clamp(high_rank, 1L, static_cast<long>(n));
  m.low = samples[static_cast<std::size_t>(low_rank - 1)];
  m.high = samples[static_cast<std::size_t>(high_rank - 1)];
  return m;
}

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n1 = a.size(), n2 = b.size();
  if (n1 == 0 || n2 == 0) return 1;
  // U = pairs (x in a, y in b) with x > y, ties counting one half.
  double u = 0;
  bool ties = false;
  for (double x : a) {
    for (double y : b) {
      if (x > y) {
        u += 1;
      } else if (x == y) {
        u += 0.5;
        ties = true;
      }
    }
  }
  const double n1d = static_cast<double>(n1), n2d = static_cast<double>(n2);
  if (!ties && n1 <= 20 && n2 <= 20) {
    const std::vector<double> dist = u_distribution(n1, n2);
    double total = 0, at_or_below = 0, at_or_above = 0;
    const auto u_int = static_cast<std::size_t>(u);
    for (std::size_t k = 0; k < dist.size(); ++k) {
      total += dist[k];
      if (k <= u_int) at_or_below += dist[k];
      if (k >= u_int) at_or_above += dist[k];
    }
    return std::min(1.0, 2 * std::min(at_or_below, at_or_above) / total);
  }
  // Normal approximation; the variance loses sum(t^3 - t) / 12 per group of t tied values.
  std::vector<double> all = a;
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  double tie_term = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j] == all[i]) ++j;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  const double n = n1d + n2d;
  const double variance = n1d * n2d / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
  if (variance <= 0) return 1;  // every value equal
  const double z = (std::fabs(u - n1d * n2d / 2) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(std::max(0.0, z) / std::sqrt(2.0)));
}

std::string Verdict::word() const {
  switch (kind) {
    case Kind::better:
      return "faster";
    case Kind::worse:
      return "slower";
    case Kind::no_clear_difference:
    case Kind::not_enough_samples:
      break;
  }
  return "no clear difference";
}

bool Verdict::more_samples_could_help(const VerdictOptions& options) const {
  if (clear() || ratio <= 0) return false;
  const double effect = std::fabs(ratio - 1) / std::min(ratio, 1.0);
  return effect >= options.min_effect;
}

Verdict compare_samples(const std::vector<double>& candidate, const std::vector<double>& baseline,
                        bool higher_is_better, const VerdictOptions& options) {
  Verdict v;
  v.n_candidate = candidate.size();
  v.n_baseline = baseline.size();
  const MedianInterval c = median_interval(candidate);
  const MedianInterval b = median_interval(baseline);
  v.basis = format_text(
      "Mann-Whitney U two-sided p <= %g (%zu vs %zu runs), 95%% median intervals apart, effect "
      ">= %s",
      options.alpha, v.n_candidate, v.n_baseline, percent(options.min_effect).c_str());
  if (candidate.size() < 2 || baseline.size() < 2) {
    v.kind = Verdict::Kind::not_enough_samples;
    v.reason = format_text("%zu vs %zu runs: a verdict needs at least 2 on each side",
                           v.n_candidate, v.n_baseline);
    if (c.median > 0 && b.median > 0)
      v.ratio = higher_is_better ? c.median / b.median : b.median / c.median;
    return v;
  }
  if (c.median > 0 && b.median > 0)
    v.ratio = higher_is_better ? c.median / b.median : b.median / c.median;
  v.p_value = mann_whitney_p(candidate, baseline);
  v.intervals_overlap = !(c.high < b.low || b.high < c.low);
  const double effect = v.ratio > 0 ? std::fabs(v.ratio - 1) / std::min(v.ratio, 1.0) : 0;
  std::vector<std::string> failed;
  if (v.p_value > options.alpha)
    failed.push_back(format_text("rank test p=%.3g > %g", v.p_value, options.alpha));
  if (v.intervals_overlap) failed.push_back("the 95% median intervals overlap");
  if (effect < options.min_effect)
    failed.push_back(format_text("effect %s < %s", percent(effect).c_str(),
                                 percent(options.min_effect).c_str()));
  v.basis = format_text(
      "Mann-Whitney U two-sided p=%.3g (%zu vs %zu runs), 95%% median intervals %s, effect %s "
      "(clear needs p <= %g, intervals apart, effect >= %s)",
      v.p_value, v.n_candidate, v.n_baseline, v.intervals_overlap ? "overlap" : "apart",
      percent(effect).c_str(), options.alpha, percent(options.min_effect).c_str());
  if (!failed.empty()) {
    v.kind = Verdict::Kind::no_clear_difference;
    for (std::size_t i = 0; i < failed.size(); ++i) v.reason += (i ? "; " : "") + failed[i];
    return v;
  }
  v.kind = v.ratio > 1 ? Verdict::Kind::better : Verdict::Kind::worse;
  return v;
}

}  // namespace threadmap
