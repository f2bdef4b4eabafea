// The color scale shared by the terminal, PNG and SVG heatmaps: a viridis-like ramp (dark
// purple = near, yellow = far; readable in grey and by color-blind readers) over a LOG scale of
// one-way latency, because on real parts latencies span 5 to 200+ ns and a linear scale would
// flatten SMT and in-cache differences into one color.
#pragma once

#include <vector>

#include "src/latency/matrix.hpp"

namespace threadmap::render {

/// An sRGB color, 0-255 per channel.
struct Rgb {
  int r = 0, g = 0, b = 0;
};

/// Maps one-way latency (ns) to color.
struct ColorScale {
  double low_ns = 1;   ///< lowest off-diagonal value (maps to the dark end)
  double high_ns = 2;  ///< highest value (maps to the bright end)

  /// Position of `ns` on the scale, 0..1 (log).
  double position(double ns) const;
  /// Latency at position t (0..1).
  double value_at(double t) const;
  /// Color of `ns`.
  Rgb color(double ns) const;
  /// Up to `count` round tick values (ns) inside [low_ns, high_ns], for legends.
  std::vector<double> ticks(int count) const;
};

/// The scale spanning the matrix's finite off-diagonal values.
ColorScale make_color_scale(const latency::Matrix& matrix);

/// The ramp itself, t in 0..1.
Rgb ramp(double t);

}  // namespace threadmap::render
