// One drawing routine for both surfaces. The cells are rendered into an image surface at their
// final pixel size and painted 1:1, so no viewer smooths cell edges and 262,144 cells of a
// 512-CPU matrix cost one image instead of 262,144 SVG rectangles.
#include "src/render/latency_image.hpp"

#include <cairo.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>

#include "src/render/latency_colors.hpp"

namespace threadmap::render {
namespace {

constexpr int kLabelGapPx = 13;  // axis labels (8-11 px text) at least this far apart

struct Layout {
  int cell = 0;
  int plot = 0;
  int left = 0, top = 0;
  int legend_x = 0;
  int label_step = 1;
  ImageSize size;
};

Layout layout_for(std::size_t n) {
  Layout l;
  l.cell = std::clamp(720 / static_cast<int>(std::max<std::size_t>(n, 1)), 2, 64);
  l.plot = l.cell * static_cast<int>(n);
  l.left = 60;
  l.top = 96;
  l.legend_x = l.left + l.plot + 30;
  for (int step : {1, 2, 4, 5, 8, 10, 16, 20, 32, 40, 64, 80, 128, 256}) {
    l.label_step = step;
    if (step * l.cell >= kLabelGapPx) break;
  }
  l.size.width = std::max(l.legend_x + 110, 480);
  l.size.height = l.top + std::max(l.plot, 260) + 30;
  return l;
}

void set_rgb(cairo_t* cr, Rgb c) {
  cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

void text_at(cairo_t* cr, double x, double y, const std::string& s, double align_x) {
  cairo_text_extents_t ext;
  cairo_text_extents(cr, s.c_str(), &ext);
  cairo_move_to(cr, x - ext.width * align_x - ext.x_bearing, y);
  cairo_show_text(cr, s.c_str());
}

cairo_surface_t* cells_image(const latency::Matrix& m, const std::vector<std::size_t>& order,
                             const Layout& l, const ColorScale& scale) {
  cairo_surface_t* img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, l.plot, l.plot);
  cairo_surface_flush(img);
  unsigned char* data = cairo_image_surface_get_data(img);
  const int stride = cairo_image_surface_get_stride(img);
  const std::size_t n = order.size();
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t c = 0; c < n; ++c) {
      double v = m.at(order[r], order[c]);
      Rgb color{255, 255, 255};  // diagonal and unmeasured cells stay white
      if (r != c && std::isfinite(v)) color = scale.color(v);
      std::uint32_t px = (static_cast<std::uint32_t>(color.r) << 16) |
                         (static_cast<std::uint32_t>(color.g) << 8) |
                         static_cast<std::uint32_t>(color.b);
      for (int y = 0; y < l.cell; ++y) {
        auto* row =
            reinterpret_cast<std::uint32_t*>(data + (static_cast<int>(r) * l.cell + y) * stride);
        std::fill(row + static_cast<int>(c) * l.cell, row + (static_cast<int>(c) + 1) * l.cell, px);
      }
    }
  }
  cairo_surface_mark_dirty(img);
  return img;
}

double text_width(cairo_t* cr, const std::string& s) {
  cairo_text_extents_t ext;
  cairo_text_extents(cr, s.c_str(), &ext);
  return ext.x_advance;
}

// The title at 15 px, or smaller down to 11 px, or shortened from its start (a long file path
// loses its leading directories, the file name and what follows stay) so it fits max_width.
void draw_title(cairo_t* cr, const std::string& title, double max_width) {
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  double size = 15;
  cairo_set_font_size(cr, size);
  while (size > 11 && text_width(cr, title) > max_width) cairo_set_font_size(cr, --size);
  std::string shown = title;
  const std::string ellipsis = "\u2026";
  std::size_t cut = 0;
  while (text_width(cr, shown) > max_width && cut < title.size()) {
    ++cut;
    while (cut < title.size() && (static_cast<unsigned char>(title[cut]) & 0xC0) == 0x80) ++cut;
    shown = ellipsis + title.substr(cut);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  text_at(cr, 12, 22, shown, 0);
}

// The subtitle wraps at "; " so it fits the image (3 lines fit above the plot).
void draw_subtitle(cairo_t* cr, const std::string& subtitle, const Layout& l) {
  const double max_width = l.size.width - 24.0;
  std::string line, rest = subtitle;
  double y = 40;
  while (!rest.empty() && y < l.top - 24) {
    std::size_t cut = rest.size();
    cairo_text_extents_t ext;
    for (;;) {
      cairo_text_extents(cr, rest.substr(0, cut).c_str(), &ext);
      if (ext.width <= max_width) break;
      std::size_t sep = rest.rfind("; ", cut - 1);
      if (sep == std::string::npos || sep == 0) break;
      cut = sep;
    }
    text_at(cr, 12, y, rest.substr(0, cut), 0);
    rest = cut < rest.size() ? rest.substr(std::min(rest.size(), cut + 2)) : "";
    y += 14;
  }
}

// Large cells (few CPUs) also carry their value, so a 2-CPU picture says more than a color.
void draw_cell_values(cairo_t* cr, const latency::Matrix& m, const std::vector<std::size_t>& order,
                      const Layout& l, const ColorScale& scale) {
  const std::size_t count = order.size();
  if (l.cell < 40) return;
  cairo_set_font_size(cr, std::min(14.0, l.cell / 4.0));
  for (std::size_t r = 0; r < count; ++r) {
    for (std::size_t c = 0; c < count; ++c) {
      double v = m.at(order[r], order[c]);
      if (r == c || !std::isfinite(v)) continue;
      double t = scale.position(v);
      cairo_set_source_rgb(cr, t > 0.6 ? 0 : 1, t > 0.6 ? 0 : 1, t > 0.6 ? 0 : 1);
      text_at(cr, l.left + (static_cast<double>(c) + 0.5) * l.cell,
              l.top + (static_cast<double>(r) + 0.5) * l.cell + 4, fmt::format("{:.1f}", v), 0.5);
    }
  }
}

// Domain outlines: each run of consecutive positions in one domain is a square on the diagonal.
void draw_domain_outlines(cairo_t* cr, const latency::Matrix& m,
                          const std::vector<std::size_t>& order, const Layout& l,
                          const std::vector<CpuSet>& domains) {
  const std::size_t n = order.size();
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_set_line_width(cr, n > 128 ? 1.0 : 2.0);
  for (const CpuSet& domain : domains) {
    std::size_t k = 0;
    while (k < n) {
      if (!domain.contains(m.cpus[order[k]])) {
        ++k;
        continue;
      }
      std::size_t end = k;
      while (end < n && domain.contains(m.cpus[order[end]])) ++end;
      if (end - k < n) {
        cairo_rectangle(
            cr, l.left + static_cast<double>(k) * l.cell, l.top + static_cast<double>(k) * l.cell,
            static_cast<double>(end - k) * l.cell, static_cast<double>(end - k) * l.cell);
        cairo_stroke(cr);
      }
      k = end;
    }
  }
}

// Axis labels: CPU numbers at every label_step-th position; leaves the font at 10 pt.
void draw_axis_labels(cairo_t* cr, const latency::Matrix& m, const std::vector<std::size_t>& order,
                      const Layout& l) {
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_font_size(cr, std::min(11.0, std::max(8.0, l.cell * 0.8)));
  for (std::size_t k : heatmap_label_positions(m, order)) {
    std::string s = std::to_string(m.cpus[order[k]]);
    double center = (static_cast<double>(k) + 0.5) * l.cell;
    text_at(cr, l.left - 4, l.top + center + 4, s, 1.0);
    cairo_save(cr);
    cairo_move_to(cr, l.left + center + 4, l.top - 4);
    cairo_rotate(cr, -M_PI / 2);
    cairo_show_text(cr, s.c_str());
    cairo_restore(cr);
  }
  cairo_set_font_size(cr, 10);
  text_at(cr, 12, l.top - 8, "CPU", 0);
}

// Legend: a vertical bar, high latency at the top, ticks in ns.
void draw_legend(cairo_t* cr, const Layout& l, const ColorScale& scale) {
  const double bar_h = 220, bar_w = 18, bar_x = l.legend_x, bar_y = l.top + 16;
  for (int y = 0; y < static_cast<int>(bar_h); ++y) {
    set_rgb(cr, ramp(1.0 - y / (bar_h - 1)));
    cairo_rectangle(cr, bar_x, bar_y + y, bar_w, 1.2);
    cairo_fill(cr);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, bar_x, bar_y, bar_w, bar_h);
  cairo_stroke(cr);
  text_at(cr, bar_x, l.top + 4, "one-way ns", 0);
  for (double tick : scale.ticks(6)) {
    double y = bar_y + (1.0 - scale.position(tick)) * bar_h;
    cairo_move_to(cr, bar_x + bar_w, y);
    cairo_line_to(cr, bar_x + bar_w + 4, y);
    cairo_stroke(cr);
    text_at(cr, bar_x + bar_w + 7, y + 4, fmt::format("{:.{}f}", tick, tick < 10 ? 1 : 0), 0);
  }
  text_at(cr, bar_x, bar_y + bar_h + 16, "log scale", 0);
}

void draw(cairo_t* cr, const latency::Matrix& m, const std::vector<std::size_t>& order,
          const HeatmapLabels& labels) {
  const Layout l = layout_for(order.size());
  const ColorScale scale = make_color_scale(m);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  draw_title(cr, labels.title, l.size.width - 24.0);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, 11);
  draw_subtitle(cr, labels.subtitle, l);

  cairo_surface_t* img = cells_image(m, order, l, scale);
  cairo_set_source_surface(cr, img, l.left, l.top);
  cairo_paint(cr);
  cairo_surface_destroy(img);

  draw_cell_values(cr, m, order, l, scale);
  draw_domain_outlines(cr, m, order, l, labels.domains);
  draw_axis_labels(cr, m, order, l);
  draw_legend(cr, l, scale);
}

}  // namespace

std::vector<std::size_t> heatmap_label_positions(const latency::Matrix& matrix,
                                                 const std::vector<std::size_t>& order) {
  const std::size_t n = order.size();
  std::vector<std::size_t> positions;
  if (n == 0) return positions;
  const Layout l = layout_for(n);
  std::size_t step = static_cast<std::size_t>(l.label_step);
  std::size_t descents = 0;
  for (std::size_t k = 1; k < n; ++k)
    if (matrix.cpus[order[k]] < matrix.cpus[order[k - 1]]) ++descents;
  if (step > 1 && step % 2 == 0 && descents * 4 > n) ++step;  // interleaved numbering
  for (std::size_t k = 0; k < n; k += step) positions.push_back(k);
  // The last position too, when it does not crowd the one before it.
  const std::size_t min_gap = (static_cast<std::size_t>(kLabelGapPx) + l.cell - 1) / l.cell;
  if (positions.back() != n - 1) {
    if (n - 1 - positions.back() < min_gap && positions.size() > 1) positions.pop_back();
    positions.push_back(n - 1);
  }
  return positions;
}

ImageSize heatmap_image_size(std::size_t cpus) { return layout_for(cpus).size; }

CellGrid heatmap_cell_grid(std::size_t cpus) {
  const Layout l = layout_for(cpus);
  return {l.left, l.top, l.cell};
}

Result<std::string> heatmap_image(ImageFormat format, const latency::Matrix& matrix,
                                  const std::vector<std::size_t>& order,
                                  const HeatmapLabels& labels) {
  ImageSize size = heatmap_image_size(order.size());
  return draw_image(
      format, size.width, size.height, [&](cairo_t* cr) { draw(cr, matrix, order, labels); },
      "the heatmap");
}

}  // namespace threadmap::render
