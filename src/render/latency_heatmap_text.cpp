// Blocks: with k CPUs per cell, a cell is the median of its k x k values (diagonal excluded),
// so a block that straddles two domains shows the majority rather than a blend.
#include "src/render/latency_heatmap_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "src/latency/matrix_summary.hpp"
#include "src/render/latency_colors.hpp"

namespace threadmap::render {
namespace {

// No blank in the ramp: a blank cell is the diagonal.
constexpr const char* kRamp = ".:-=+*#%@";
constexpr int kRampSize = 9;

char ramp_char(double t) {
  int k = static_cast<int>(std::clamp(t, 0.0, 1.0) * (kRampSize - 1) + 0.5);
  return kRamp[k];
}

std::string cell(double ns, bool diagonal, const ColorScale& scale, bool color) {
  if (diagonal) return color ? "\x1b[0m  " : "  ";
  if (!std::isfinite(ns)) return color ? "\x1b[0m??" : "??";
  if (!color) return std::string(2, ramp_char(scale.position(ns)));
  Rgb c = scale.color(ns);
  return fmt::format("\x1b[48;2;{};{};{}m  ", c.r, c.g, c.b);
}

// A numeric cell: the value (4 characters) on its color, black or white text for contrast.
std::string numeric_cell(double ns, bool diagonal, const ColorScale& scale, bool color) {
  std::string text = diagonal             ? "   -"
                     : !std::isfinite(ns) ? "   ?"
                     : ns < 99.95         ? fmt::format("{:>4.1f}", ns)
                                          : fmt::format("{:>4.0f}", ns);
  if (!color || diagonal || !std::isfinite(ns)) return (color ? "\x1b[0m " : " ") + text;
  Rgb c = scale.color(ns);
  int fg = scale.position(ns) > 0.6 ? 0 : 255;
  return fmt::format("\x1b[48;2;{};{};{}m\x1b[38;2;{};{};{}m {}", c.r, c.g, c.b, fg, fg, fg, text);
}

// A row/column label: the first CPU of the cell's block (the header says blocks are in use).
std::string label_of(const latency::Matrix& m, const std::vector<std::size_t>& order,
                     std::size_t first) {
  return std::to_string(m.cpus[order[first]]);
}

// Every CPU its own cell, with its value printed: for matrices small enough to read.
std::string numeric_grid(const latency::Matrix& matrix, const std::vector<std::size_t>& order,
                         const ColorScale& scale, bool color) {
  const std::size_t n = order.size();
  std::size_t w = 1;
  for (std::size_t i = 0; i < n; ++i) {
    w = std::max(w, std::to_string(matrix.cpus[order[i]]).size());
  }
  std::string out = std::string(w + 1, ' ');
  for (std::size_t c = 0; c < n; ++c) out += fmt::format(" {:>4}", matrix.cpus[order[c]]);
  out += '\n';
  for (std::size_t r = 0; r < n; ++r) {
    out += fmt::format("{:>{}} ", matrix.cpus[order[r]], w);
    for (std::size_t c = 0; c < n; ++c) {
      out += numeric_cell(matrix.at(order[r], order[c]), r == c, scale, color);
    }
    if (color) out += "\x1b[0m";
    out += '\n';
  }
  return out;
}

// One shaded character pair per cell, column labels written vertically to keep cells narrow.
std::string block_grid(const latency::Matrix& matrix, const std::vector<std::size_t>& order,
                       std::size_t block, const ColorScale& scale, bool color) {
  const std::size_t cells = (order.size() + block - 1) / block;
  const std::vector<double> value = latency::block_medians(matrix, order, block, cells);
  std::vector<std::string> labels(cells);
  std::size_t width = 1;
  for (std::size_t r = 0; r < cells; ++r) {
    labels[r] = label_of(matrix, order, r * block);
    width = std::max(width, labels[r].size());
  }
  std::string out;
  for (std::size_t d = 0; d < width; ++d) {
    out += std::string(width + 1, ' ');
    for (std::size_t c = 0; c < cells; ++c) {
      const std::string& l = labels[c];
      std::size_t pad = width - l.size();
      out += d < pad ? ' ' : l[d - pad];
      out += ' ';
    }
    out += '\n';
  }
  for (std::size_t r = 0; r < cells; ++r) {
    out += fmt::format("{:>{}} ", labels[r], width);
    for (std::size_t c = 0; c < cells; ++c) {
      out += cell(value[r * cells + c], block == 1 && r == c, scale, color);
    }
    if (color) out += "\x1b[0m";
    out += '\n';
  }
  return out;
}

// Legend: the ramp with ns at its ends and in the middle (log scale).
std::string legend(const ColorScale& scale, bool color) {
  std::string out = "\nlegend (one-way latency, ns, log scale): ";
  if (scale.high_ns < scale.low_ns * 1.05) {
    const std::string low = fmt::format("{:.1f}", scale.low_ns);
    const std::string high = fmt::format("{:.1f}", scale.high_ns);
    out += "every cell is " + (low == high ? low : low + "-" + high) + " ns\n";
  } else if (color) {
    out += fmt::format("{:.1f} ", scale.low_ns);
    for (int k = 0; k < 24; ++k) {
      Rgb c = ramp(k / 23.0);
      out += fmt::format("\x1b[48;2;{};{};{}m \x1b[0m", c.r, c.g, c.b);
    }
    out += fmt::format(" {:.1f}   (middle = {:.1f})\n", scale.high_ns, scale.value_at(0.5));
  } else {
    out += '\n';
    for (int k = 0; k < kRampSize; ++k) {
      double from = scale.value_at(std::max(0.0, (k - 0.5) / (kRampSize - 1)));
      double to = scale.value_at(std::min(1.0, (k + 0.5) / (kRampSize - 1)));
      out += fmt::format("  '{}{}' {:.1f}-{:.1f}", kRamp[k], kRamp[k], from, to);
      if (k % 5 == 4 || k == kRampSize - 1) out += '\n';
    }
  }
  return out;
}

}  // namespace

namespace {

// CPUs per cell: 1 when every CPU fits `max_columns` (a row label, then two characters a cell),
// else the smallest power of two that makes them fit (cores and caches come in powers of two,
// so blocks rarely straddle them).
std::size_t block_size(const latency::Matrix& matrix, std::size_t n,
                       const TextHeatmapOptions& options) {
  std::size_t label = 1;
  for (int cpu : matrix.cpus) label = std::max(label, std::to_string(cpu).size());
  const std::size_t fit =
      options.max_columns > label + 3 ? (options.max_columns - label - 1) / 2 : 1;
  const std::size_t max_cells = std::max<std::size_t>(1, std::min(options.max_cells, fit));
  std::size_t block = 1;
  while ((n + block - 1) / block > max_cells) block *= 2;
  return block;
}

}  // namespace

std::string latency_heatmap_text(const latency::Matrix& matrix,
                                 const std::vector<std::size_t>& order,
                                 const TextHeatmapOptions& options) {
  const std::size_t n = order.size();
  const std::size_t block = block_size(matrix, n, options);
  ColorScale scale = make_color_scale(matrix);
  if (block == 1 && n <= options.max_numeric) {
    std::string out = numeric_grid(matrix, order, scale, options.color);
    if (!options.color) return out + "\n(cells: one-way latency, ns)\n";
    return out + legend(scale, options.color);
  }
  std::string out;
  if (block > 1) {
    out += fmt::format(
        "(each cell: median of a {0}x{0} block of CPUs; label = first CPU of the block)\n"
        "(every pair, one cell each: the --png, --svg or --csv outputs)\n",
        block);
  }
  out += block_grid(matrix, order, block, scale, options.color);
  return out + legend(scale, options.color);
}

}  // namespace threadmap::render
