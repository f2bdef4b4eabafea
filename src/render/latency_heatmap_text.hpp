// The terminal heatmap: one cell per CPU pair (two characters wide), or per block of CPUs when
// the matrix would not fit 100 columns (the text then says where every cell is: the
// --png/--svg/--csv outputs), with a legend in ns. 24-bit ANSI colors on a TTY; on a
// pipe, a character ramp that survives copy-paste and logs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "src/latency/matrix.hpp"

namespace threadmap::render {

/// Options of the terminal heatmap.
struct TextHeatmapOptions {
  bool color = true;           ///< ANSI 24-bit background colors (else a character ramp)
  std::size_t max_cells = 64;  ///< most cells per axis; larger matrices are shown in blocks
  /// The widest line of the grid, in terminal columns: blocks grow until it fits.
  std::size_t max_columns = 100;
  std::size_t max_numeric = 16;  ///< up to this many CPUs, cells show their value in ns
};

/// Draws `matrix` with rows/columns in `order` (matrix row indexes). Each line ends in '\n'.
/// When blocks are used, the text says how many CPUs a cell covers and that a cell shows the
/// median of its block.
std::string latency_heatmap_text(const latency::Matrix& matrix,
                                 const std::vector<std::size_t>& order,
                                 const TextHeatmapOptions& options);

}  // namespace threadmap::render
