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

std::string process_comm(const monitor::WatchHistory& history, pid_t pid) {
  for (const auto& p : history.processes())
    if (p.pid == pid) return p.comm;
  return "";
}

// Where things go on the picture, and the facts every step draws from.
struct Layout {
  double width = 0, row_h = 0, left = 0, top = 0, plot_w = 0;
  double t0 = 0, span_s = 0;  // the first sample's time and what the samples cover
  bool activity_known = false;
  std::map<int, size_t> cpu_index;  // CPU -> its colour's index
  double x_of(double t) const { return left + (t - t0) / span_s * plot_w; }
};

Layout lay_out(const monitor::WatchHistory& history, double width, double row_h, double left,
               double top, double plot_w) {
  Layout l;
  l.width = width;
  l.row_h = row_h;
  l.left = left;
  l.top = top;
  l.plot_w = plot_w;
  // Running vs waiting is known only when the counters gave CPU time (task clock).
  for (const auto& t : history.threads())
    for (const auto& s : t.spans) {
      l.activity_known = l.activity_known || s.cpu_s > 0;
      l.cpu_index.emplace(s.cpu, 0);
    }
  size_t n = 0;
  for (auto& [cpu, idx] : l.cpu_index) idx = n++;
  l.t0 = history.first_s();
  l.span_s = std::max(history.last_s() - l.t0, 1e-3);
  return l;
}

// The title: whose threads, how many, over how long (the summary's duration, and what the
// samples cover when it differs), and how to read the bars.
void draw_title(cairo_t* cr, const monitor::WatchHistory& history, const Layout& l,
                double watched_s) {
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, 13);
  cairo_set_source_rgb(cr, 0, 0, 0);
  // Two lines from the left edge: what was watched, then how to read it (one line was cut at the
  // picture's right edge).
  cairo_move_to(cr, 4, 16);
  const std::string duration =
      watched_s >= 0 && std::abs(watched_s - l.span_s) >= 0.005
          ? fmt::format("watched {:.2f} s (samples cover {:.2f} s)", watched_s, l.span_s)
          : fmt::format("{:.2f} s", l.span_s);
  const std::string who = history.follow()
                              ? fmt::format("process {} and its descendants ({} processes)",
                                            history.pid(), history.processes().size())
                              : fmt::format("process {}", history.pid());
  const std::string title =
      fmt::format("threadmap watch: {}, {} threads, {}", who, history.threads().size(), duration);
  cairo_show_text(cr, title.c_str());
  cairo_set_font_size(cr, 12);
  cairo_move_to(cr, 4, 33);
  const std::string how =
      std::string("colour = the CPU each thread was on at each sample") +
      (l.activity_known ? "; full bar = running, half = starved of CPU, thin = asleep" : "");
  cairo_show_text(cr, how.c_str());
}

// One thread's row: a bar per span in its CPU's colour, thin where it waited, and its label.
void draw_row(cairo_t* cr, const monitor::WatchHistory& history, const Layout& l, size_t i) {
  const auto& threads = history.threads();
  const auto& t = threads[i];
  const double y = l.top + static_cast<double>(i) * l.row_h;
  for (const auto& s : t.spans) {
    Rgb c = color_for(l.cpu_index.at(s.cpu), l.cpu_index.size());
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
    double x0 = l.x_of(s.start_s);
    // A span seen at a single sample still gets a visible sliver.
    double x1 = std::max(l.x_of(s.end_s), x0 + 1.0);
    const double full = std::max(l.row_h - 1, 1.0);
    // A thread asleep is a thin line through the middle of its row, on its CPU's colour; one
    // runnable but starved of CPU (it waited on a run queue) half the row.
    const double h = !l.activity_known || s.active ? full
                     : s.starved                   ? std::max(full / 2, 1.0)
                                                   : std::max(full / 4, 1.0);
    cairo_rectangle(cr, x0, y + (full - h) / 2, x1 - x0, h);
    cairo_fill(cr);
  }
  // Following, rows come grouped by process: a line above each process's first row, and
  // labels that name the process (pid and command) before the thread.
  if (history.follow() && i > 0 && threads[i - 1].pid != t.pid) {
    cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, 0, y - 0.5);
    cairo_line_to(cr, l.width, y - 0.5);
    cairo_stroke(cr);
  }
  if (l.row_h < 9) return;  // too thin for text
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_move_to(cr, 4, y + l.row_h - 3);
  std::string label =
      history.follow()
          ? fmt::format("{} {}: {} {}", t.pid, terminal_safe(process_comm(history, t.pid)), t.tid,
                        terminal_safe(t.name))
                .substr(0, 44)
          : fmt::format("{} {}{}", t.tid, terminal_safe(t.name), t.main_thread ? " [main]" : "")
                .substr(0, 26);
  cairo_show_text(cr, label.c_str());
}

}  // namespace

double tick_step(double span_s) {
  if (!(span_s > 0)) return 0;
  const double raw = span_s / 8;
  const double decade = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * decade >= raw) return m * decade;
  return 10 * decade;
}

namespace {

// The time axis below the rows, ticks at round times; returns where it is drawn.
double draw_time_axis(cairo_t* cr, const Layout& l, size_t rows) {
  double axis_y = l.top + static_cast<double>(rows) * l.row_h + 4;
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_move_to(cr, l.left, axis_y);
  cairo_line_to(cr, l.left + l.plot_w, axis_y);
  cairo_stroke(cr);
  cairo_set_font_size(cr, 11);
  // Ticks at round times (a 1, 2 or 5 step, 5 to 10 of them), not at tenths of the span
  // (141, 281, 422 ms).
  const double step = tick_step(l.span_s);
  for (int k = 0; step > 0 && k * step <= l.span_s * (1 + 1e-9); ++k) {
    const double t = k * step;
    double x = l.left + (l.span_s > 0 ? l.plot_w * t / l.span_s : 0);
    cairo_move_to(cr, x, axis_y);
    cairo_line_to(cr, x, axis_y + 4);
    cairo_stroke(cr);
    std::string label = step >= 1      ? fmt::format("{:g} s", t)
                        : step >= 1e-3 ? fmt::format("{:g} ms", std::round(t * 1e6) / 1e3)
                                       : fmt::format("{:g} us", std::round(t * 1e9) / 1e3);
    // Centre each tick label on its tick, but keep the last one inside the picture.
    cairo_text_extents_t ext;
    cairo_text_extents(cr, label.c_str(), &ext);
    double lx_text = std::min(x - ext.width / 2, l.width - ext.width - 4);
    cairo_move_to(cr, lx_text, axis_y + 16);
    cairo_show_text(cr, label.c_str());
  }
  return axis_y;
}

// The legend: one swatch per CPU, wrapped to the picture's width.
void draw_legend(cairo_t* cr, const Layout& l, double axis_y) {
  double lx = l.left, ly = axis_y + 30;
  for (const auto& [cpu, idx] : l.cpu_index) {
    if (lx + 70 > l.width) {
      lx = l.left;
      ly += 18;
    }
    Rgb c = color_for(idx, l.cpu_index.size());
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
    cairo_rectangle(cr, lx, ly - 10, 12, 12);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_move_to(cr, lx + 16, ly);
    std::string label = fmt::format("CPU {}", cpu);
    cairo_show_text(cr, label.c_str());
    lx += 70;
  }
}

void draw(cairo_t* cr, const monitor::WatchHistory& history, const Layout& l, double watched_s) {
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  draw_title(cr, history, l, watched_s);
  cairo_set_font_size(cr, std::min(11.0, l.row_h - 2));
  for (size_t i = 0; i < history.threads().size(); ++i) draw_row(cr, history, l, i);
  draw_legend(cr, l, draw_time_axis(cr, l, history.threads().size()));
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
  // Following, labels name the process too ("PID COMMAND: TID NAME"): a wider margin.
  const double width = 1200, left = history.follow() ? 280 : 190, top = 46,
               plot_w = width - left - 20;
  const double legend_rows = std::ceil(static_cast<double>(cpus) * 70.0 / (width - left)) + 1;
  const double height = top + static_cast<double>(rows) * row_h + 40 + legend_rows * 18 + 10;

  const Layout layout = lay_out(history, width, row_h, left, top, plot_w);
  return draw_image(
      format, static_cast<int>(width), static_cast<int>(height),
      [&](cairo_t* cr) { draw(cr, history, layout, watched_s); }, "the timeline");
}

}  // namespace threadmap::render
