// Viridis control points (the published colormap's values at 0, 1/8, ..., 1), linearly
// interpolated: close enough for a heatmap, no table of 256 entries.
#include "src/render/latency_colors.hpp"

#include <algorithm>
#include <cmath>

namespace threadmap::render {
namespace {

constexpr Rgb kStops[] = {{68, 1, 84},    {71, 44, 122},  {59, 81, 139},
                          {44, 113, 142}, {33, 144, 141}, {39, 173, 129},
                          {92, 200, 99},  {170, 220, 50}, {253, 231, 37}};
constexpr int kStopCount = sizeof(kStops) / sizeof(kStops[0]);

}  // namespace

Rgb ramp(double t) {
  t = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0);
  double pos = t * (kStopCount - 1);
  int k = std::min(static_cast<int>(pos), kStopCount - 2);
  double f = pos - k;
  auto mix = [f](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * f)); };
  return {mix(kStops[k].r, kStops[k + 1].r), mix(kStops[k].g, kStops[k + 1].g),
          mix(kStops[k].b, kStops[k + 1].b)};
}

double ColorScale::position(double ns) const {
  if (!(ns > 0) || high_ns <= low_ns) return 0;
  return std::clamp(std::log(ns / low_ns) / std::log(high_ns / low_ns), 0.0, 1.0);
}

double ColorScale::value_at(double t) const { return low_ns * std::pow(high_ns / low_ns, t); }

Rgb ColorScale::color(double ns) const { return ramp(position(ns)); }

std::vector<double> ColorScale::ticks(int count) const {
  // Round numbers (1, 2, 5 x 10^k) spread over the log range, plus both ends.
  std::vector<double> candidates;
  for (double decade = std::pow(10, std::floor(std::log10(low_ns))); decade <= high_ns * 10;
       decade *= 10) {
    for (double m : {1.0, 2.0, 5.0}) {
      double v = m * decade;
      if (v >= low_ns && v <= high_ns) candidates.push_back(v);
    }
  }
  std::vector<double> out;
  if (candidates.size() <= static_cast<std::size_t>(std::max(count, 1))) {
    out = candidates;
  } else {
    for (int k = 0; k < count; ++k) {
      out.push_back(candidates[static_cast<std::size_t>(k) * (candidates.size() - 1) /
                               static_cast<std::size_t>(std::max(count - 1, 1))]);
    }
  }
  if (out.empty() || out.front() / low_ns > 1.15) out.insert(out.begin(), low_ns);
  if (high_ns / out.back() > 1.15) out.push_back(high_ns);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

ColorScale make_color_scale(const latency::Matrix& matrix) {
  ColorScale s;
  double lo = 0, hi = 0;
  bool any = false;
  for (std::size_t i = 0; i < matrix.size(); ++i) {
    for (std::size_t j = 0; j < matrix.size(); ++j) {
      double v = matrix.at(i, j);
      if (i == j || !std::isfinite(v) || v <= 0) continue;
      lo = any ? std::min(lo, v) : v;
      hi = any ? std::max(hi, v) : v;
      any = true;
    }
  }
  if (any) {
    s.low_ns = lo;
    s.high_ns = hi > lo ? hi : lo * 1.01;
  }
  return s;
}

}  // namespace threadmap::render
