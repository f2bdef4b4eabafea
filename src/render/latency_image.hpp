// PNG and SVG heatmaps of a latency matrix, drawn with cairo: CPU numbers on both axes (every
// k-th when they would overlap), a color-scale legend in ns, latency domains outlined on the
// diagonal, and a title naming the CPU model and method. Sized so 2 CPUs are still large cells
// and 512 CPUs fit about 1000 pixels.
#pragma once

#include <string>
#include <vector>

#include "src/latency/matrix.hpp"
#include "src/render/cairo_image.hpp"
#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"

namespace threadmap::render {

/// What goes around the cells.
struct HeatmapLabels {
  /// e.g. "AMD EPYC 7773X: one-way core-to-core latency"; drawn smaller, then shortened from
  /// the start ("...dir/file.csv: ..."), when it is wider than the image.
  std::string title;
  std::string subtitle;         ///< e.g. "method cas; median of the batches of each pair"
  std::vector<CpuSet> domains;  ///< outlined where their CPUs are adjacent in the order
};

/// Pixel (PNG) or point (SVG) size of a heatmap of n CPUs.
struct ImageSize {
  int width = 0;
  int height = 0;
};

/// The size heatmaps of `cpus` CPUs are drawn at.
ImageSize heatmap_image_size(std::size_t cpus);

/// Where the cells of a heatmap of `cpus` CPUs are drawn (pixels for PNG, points for SVG): the
/// cell of row r, column c of the order covers [x + c*cell, x + (c+1)*cell) horizontally and
/// [y + r*cell, y + (r+1)*cell) vertically. For readers of the image (tests, image maps).
struct CellGrid {
  int x = 0;
  int y = 0;
  int cell = 0;
};

/// The cell grid of a heatmap of `cpus` CPUs, as drawn by heatmap_image.
CellGrid heatmap_cell_grid(std::size_t cpus);

/// Positions of `order` whose CPU number is written on the axes: about one per 13 pixels, the
/// first and the last always, and, when the order interleaves CPU numbers (SMT siblings side by
/// side, e.g. 0,128,1,129,...), an odd step so that both halves of the numbering are labelled
/// (an even step would show only 0..127 of 256 CPUs).
std::vector<std::size_t> heatmap_label_positions(const latency::Matrix& matrix,
                                                 const std::vector<std::size_t>& order);

/// The heatmap encoded as PNG or SVG (in SVG the cells are embedded as one image, so 512 CPUs
/// stay a small file). Fails with cairo's reason when drawing fails.
Result<std::string> heatmap_image(ImageFormat format, const latency::Matrix& matrix,
                                  const std::vector<std::size_t>& order,
                                  const HeatmapLabels& labels);

}  // namespace threadmap::render
