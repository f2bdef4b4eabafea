// Timeline drawing with cairo (PNG and SVG from the same code, written to memory streams).
#include "src/render/watch_timeline.hpp"

#include <cairo.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "src/render/safe_text.hpp"

namespace threadmap::render {
namespace {

struct Rgb {
  double r, g, b;
};

// Evenly spaced hues, alternating lightness so neighbouring CPU numbers stay distinguishable.
Rgb color_for(size_t index, size_t count) {
  double h =
      std::fmod(static_cast<double>(index) / static_cast<double>(std::max<size_t>(count, 1)), 1.0) *
      6.0;
  double s = 0.65, v = (index % 2) ? 0.75 : 0.95;
  double c = v * s, x = c * (1 - std::fabs(std::fmod(h, 2.0) - 1)), m = v - c;
  Rgb out{0, 0, 0};
  switch (static_cast<int>(h)) {
    case 0:
      out = {c, x, 0};
      break;
    case 1:
      out = {x, c, 0};
      break;
    case 2:
      out = {0, c, x};
      break;
    case 3:
      out = {0, x, c};
      break;
    case 4:
      out = {x, 0, c};
      break;
    default:
      out = {c, 0, x};
      break;
  }
  return {out.r + m, out.g + m, out.b + m};
}

void draw(cairo_t* cr, const monitor::WatchHistory& history, double width, double height,
          double row_h, double left, double top, double plot_w, double watched_s) {
  const auto& threads = history.threads();
  // Running vs waiting is known only when the counters gave CPU time (task clock).
  bool activity_known = false;
  for (const auto& t : threads)
    for (const auto& s : t.spans) activity_known = activity_known || s.cpu_s > 0;
  std::map<int, size_t> cpu_index;
  for (const auto& t : threads)
    for (const auto& s : t.spans) cpu_index.emplace(s.cpu, 0);
  size_t n = 0;
  for (auto& [cpu, idx] : cpu_index) idx = n++;

  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  double t0 = history.first_s();
  double span_s = std::max(history.last_s() - t0, 1e-3);
  auto x_of = [&](double t) { return left + (t - t0) / span_s * plot_w; };

  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, 13);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_move_to(cr, left, 20);
  // The same duration as the summary's, and what the samples cover when it differs.
  const std::string duration =
      watched_s >= 0 && std::abs(watched_s - span_s) >= 0.005
          ? fmt::format("watched {:.2f} s (samples cover {:.2f} s)", watched_s, span_s)
          : fmt::format("{:.2f} s", span_s);
  std::string title = fmt::format(
      "threadmap watch: process {}, {} threads, {} — CPU of each thread at each sample{}",
      history.pid(), threads.size(), duration,
      activity_known ? "; thin = waiting, full = running" : "");
  cairo_show_text(cr, title.c_str());

  cairo_set_font_size(cr, std::min(11.0, row_h - 2));
  for (size_t i = 0; i < threads.size(); ++i) {
    const auto& t = threads[i];
    double y = top + static_cast<double>(i) * row_h;
    for (const auto& s : t.spans) {
      Rgb c = color_for(cpu_index[s.cpu], n);
      cairo_set_source_rgb(cr, c.r, c.g, c.b);
      double x0 = x_of(s.start_s);
      // A span seen at a single sample still gets a visible sliver.
      double x1 = std::max(x_of(s.end_s), x0 + 1.0);
      const double full = std::max(row_h - 1, 1.0);
      // A waiting thread is a thin line through the middle of its row, on its CPU's colour.
      const double h = activity_known && !s.active ? std::max(full / 4, 1.0) : full;
      cairo_rectangle(cr, x0, y + (full - h) / 2, x1 - x0, h);
      cairo_fill(cr);
    }
    if (row_h >= 9) {
      cairo_set_source_rgb(cr, 0, 0, 0);
      cairo_move_to(cr, 4, y + row_h - 3);
      std::string label = fmt::format("{} {}", t.tid, terminal_safe(t.name)).substr(0, 26);
      cairo_show_text(cr, label.c_str());
    }
  }
  // Time axis.
  double axis_y = top + static_cast<double>(threads.size()) * row_h + 4;
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_move_to(cr, left, axis_y);
  cairo_line_to(cr, left + plot_w, axis_y);
  cairo_stroke(cr);
  cairo_set_font_size(cr, 11);
  for (int k = 0; k <= 10; ++k) {
    double x = left + plot_w * k / 10.0;
    cairo_move_to(cr, x, axis_y);
    cairo_line_to(cr, x, axis_y + 4);
    cairo_stroke(cr);
    // Short runs get ms ticks so that neighbouring labels differ.
    double t = span_s * k / 10.0;
    std::string label = span_s >= 2     ? fmt::format("{:.1f} s", t)
                        : span_s >= 0.1 ? fmt::format("{:.0f} ms", t * 1e3)
                                        : fmt::format("{:.1f} ms", t * 1e3);
    // Centre each tick label on its tick, but keep the last one inside the picture.
    cairo_text_extents_t ext;
    cairo_text_extents(cr, label.c_str(), &ext);
    double lx_text = std::min(x - ext.width / 2, width - ext.width - 4);
    cairo_move_to(cr, lx_text, axis_y + 16);
    cairo_show_text(cr, label.c_str());
  }
  // Legend: one swatch per CPU.
  double lx = left, ly = axis_y + 30;
  for (const auto& [cpu, idx] : cpu_index) {
    if (lx + 70 > width) {
      lx = left;
      ly += 18;
    }
    Rgb c = color_for(idx, n);
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
    cairo_rectangle(cr, lx, ly - 10, 12, 12);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_move_to(cr, lx + 16, ly);
    std::string label = fmt::format("CPU {}", cpu);
    cairo_show_text(cr, label.c_str());
    lx += 70;
  }
  (void)height;
}

}  // namespace

Result<std::string> watch_timeline_image(const monitor::WatchHistory& history, ImageFormat format,
                                         double watched_s) {
  const size_t rows = std::max<size_t>(history.threads().size(), 1);
  const double row_h = std::clamp(4000.0 / static_cast<double>(rows), 2.0, 16.0);
  size_t cpus = 0;
  {
    std::map<int, int> seen;
    for (const auto& t : history.threads())
      for (const auto& s : t.spans) seen[s.cpu] = 1;
    cpus = seen.size();
  }
  const double width = 1200, left = 190, top = 34, plot_w = width - left - 20;
  const double legend_rows = std::ceil(static_cast<double>(cpus) * 70.0 / (width - left)) + 1;
  const double height = top + static_cast<double>(rows) * row_h + 40 + legend_rows * 18 + 10;

  return draw_image(
      format, static_cast<int>(width), static_cast<int>(height),
      [&](cairo_t* cr) { draw(cr, history, width, height, row_h, left, top, plot_w, watched_s); },
      "the timeline");
}

}  // namespace threadmap::render
