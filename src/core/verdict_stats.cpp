// The rank tests and intervals of verdict_stats.hpp.
#include "src/core/verdict_stats.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <utility>

#include "src/core/sample_stats.hpp"

namespace threadmap {
namespace {

// Number of arrangements of n1 + n2 ranks whose U statistic (pairs a < b) equals each u, by
// the recurrence count(n1, n2, u) = count(n1 - 1, n2, u - n2) + count(n1, n2 - 1, u).
std::vector<double> build_u_distribution(std::size_t n1, std::size_t n2) {
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

// The distribution is the same for every call with the same sizes (tune and the benches ask
// again after every round): built once per size pair.
const std::vector<double>& u_distribution(std::size_t n1, std::size_t n2) {
  static std::mutex mutex;
  static std::map<std::pair<std::size_t, std::size_t>, std::vector<double>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_pair(n1, n2);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, build_u_distribution(n1, n2)).first;
  return it->second;
}

// Number of subsets of the ranks 1..n whose sum is each v (the signed-rank statistic's exact
// null distribution, times 2^n).
std::vector<double> signed_rank_distribution(std::size_t n) {
  const std::size_t most = n * (n + 1) / 2;
  std::vector<double> count(most + 1, 0);
  count[0] = 1;
  for (std::size_t rank = 1; rank <= n; ++rank)
    for (std::size_t v = most; v >= rank; --v) count[v] += count[v - rank];
  return count;
}

// Two-sided exact p of statistic v under `count` (symmetric): twice the smaller tail.
double two_sided_exact(const std::vector<double>& count, double v) {
  double total = 0, at_or_below = 0, at_or_above = 0;
  for (std::size_t k = 0; k < count.size(); ++k) {
    total += count[k];
    if (static_cast<double>(k) <= v) at_or_below += count[k];
    if (static_cast<double>(k) >= v) at_or_above += count[k];
  }
  return std::min(1.0, 2 * std::min(at_or_below, at_or_above) / total);
}

// Mid-ranks (1-based) of `values`, and the tie term sum(t^3 - t) over groups of equal values.
std::vector<double> mid_ranks(const std::vector<double>& values, double& tie_term) {
  std::vector<std::size_t> order(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  tie_term = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && values[order[j]] == values[order[i]]) ++j;
    const double mid = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (std::size_t k = i; k < j; ++k) ranks[order[k]] = mid;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  return ranks;
}

}  // namespace

MedianInterval median_interval(std::vector<double> samples) {
  MedianInterval m;
  if (samples.empty()) return m;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  m.median = quantile_of_sorted(samples, 0.5);
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
  if (!ties && n1 <= 20 && n2 <= 20) return two_sided_exact(u_distribution(n1, n2), u);
  // Normal approximation; the variance loses sum(t^3 - t) / 12 per group of t tied values.
  std::vector<double> all = a;
  all.insert(all.end(), b.begin(), b.end());
  double tie_term = 0;
  mid_ranks(all, tie_term);
  const double n = n1d + n2d;
  const double variance = n1d * n2d / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
  if (variance <= 0) return 1;  // every value equal
  const double z = (std::fabs(u - n1d * n2d / 2) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(std::max(0.0, z) / std::sqrt(2.0)));
}

double smallest_mann_whitney_p(std::size_t n1, std::size_t n2) {
  if (n1 == 0 || n2 == 0) return 1;
  // 2 / C(n1 + n2, n1), built as a product to stay in range.
  double combinations = 1;
  for (std::size_t i = 1; i <= std::min(n1, n2); ++i)
    combinations =
        combinations * static_cast<double>(n1 + n2 - std::min(n1, n2) + i) / static_cast<double>(i);
  return std::min(1.0, 2 / combinations);
}

SignedRank wilcoxon_signed_rank(const std::vector<double>& differences) {
  SignedRank s;
  std::vector<double> nonzero, magnitude;
  for (double d : differences)
    if (d != 0) {
      nonzero.push_back(d);
      magnitude.push_back(std::fabs(d));
    }
  s.used = nonzero.size();
  if (s.used == 0) return s;
  const bool had_zeros = s.used != differences.size();
  double tie_term = 0;
  const std::vector<double> ranks = mid_ranks(magnitude, tie_term);
  for (std::size_t i = 0; i < nonzero.size(); ++i)
    if (nonzero[i] > 0) s.statistic += ranks[i];
  const double n = static_cast<double>(s.used);
  if (tie_term == 0 && !had_zeros && s.used < 50) {
    s.exact = true;
    s.p_value = two_sided_exact(signed_rank_distribution(s.used), s.statistic);
    return s;
  }
  // Normal approximation with tie and continuity correction (as R's wilcox.test).
  const double centre = n * (n + 1) / 4;
  const double variance = n * (n + 1) * (2 * n + 1) / 24 - tie_term / 48;
  if (variance <= 0) return s;
  double z = s.statistic - centre;
  z = (std::fabs(z) - 0.5) / std::sqrt(variance);
  s.p_value = std::min(1.0, std::erfc(std::max(0.0, z) / std::sqrt(2.0)));
  return s;
}

double smallest_signed_rank_p(std::size_t n) {
  if (n == 0) return 1;
  return std::min(1.0, 2 / std::pow(2.0, static_cast<double>(n)));
}

double sign_test_p(std::size_t positive, std::size_t negative) {
  const std::size_t n = positive + negative;
  if (n == 0) return 1;
  const std::size_t k = std::min(positive, negative);
  // P(X <= k) for X ~ Binomial(n, 1/2), in logs to stay in range for long runs.
  double tail = 0;
  for (std::size_t i = 0; i <= k; ++i)
    tail += std::exp(
        std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(i) + 1) -
        std::lgamma(static_cast<double>(n - i) + 1) - static_cast<double>(n) * std::log(2.0));
  return std::min(1.0, 2 * tail);
}

ShiftInterval hodges_lehmann_interval(const std::vector<double>& differences, double alpha) {
  ShiftInterval h;
  const std::size_t n = differences.size();
  if (n == 0) return h;
  std::vector<double> walsh;
  walsh.reserve(n * (n + 1) / 2);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i; j < n; ++j) walsh.push_back((differences[i] + differences[j]) / 2);
  std::sort(walsh.begin(), walsh.end());
  h.estimate = quantile_of_sorted(walsh, 0.5);
  h.low = *std::min_element(differences.begin(), differences.end());
  h.high = *std::max_element(differences.begin(), differences.end());
  // c: the largest statistic with P(V <= c) <= alpha / 2; the interval drops the c smallest and
  // the c largest Walsh averages.
  const std::size_t most = walsh.size();
  long c = -1;
  if (n < 50) {
    const std::vector<double> count = signed_rank_distribution(n);
    const double total = std::pow(2.0, static_cast<double>(n));
    double below = 0;
    for (std::size_t v = 0; v < count.size(); ++v) {
      below += count[v];
      if (below / total > alpha / 2) break;
      c = static_cast<long>(v);
    }
  } else {
    const double nd = static_cast<double>(n);
    // The normal quantile of alpha / 2 by bisection on erfc (no inverse in the standard library).
    double lo = 0, hi = 10;
    for (int i = 0; i < 100; ++i) {
      const double mid = (lo + hi) / 2;
      (std::erfc(mid / std::sqrt(2.0)) / 2 > alpha / 2 ? lo : hi) = mid;
    }
    // P(V <= c) ~ Phi((c + 0.5 - centre) / sd) <= alpha / 2, with the continuity correction.
    c = static_cast<long>(
        std::floor(nd * (nd + 1) / 4 - hi * std::sqrt(nd * (nd + 1) * (2 * nd + 1) / 24) - 0.5));
  }
  if (c < 0) return h;
  h.bounded = true;
  h.low = walsh[static_cast<std::size_t>(c)];
  h.high = walsh[most - 1 - static_cast<std::size_t>(c)];
  return h;
}

}  // namespace threadmap
