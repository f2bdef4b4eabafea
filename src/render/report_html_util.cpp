#include "src/render/report_html_util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "src/render/bench_view.hpp"

namespace threadmap::render::html {

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string base64(const std::string& bytes) {
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16 |
                       static_cast<unsigned char>(bytes[i + 1]) << 8 |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += alphabet[v >> 18 & 63];
    out += alphabet[v >> 12 & 63];
    out += alphabet[v >> 6 & 63];
    out += alphabet[v & 63];
  }
  if (i < bytes.size()) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += alphabet[v >> 18 & 63];
    out += alphabet[v >> 12 & 63];
    out += i + 1 < bytes.size() ? alphabet[v >> 6 & 63] : '=';
    out += '=';
  }
  return out;
}

std::string data_uri(const std::string& mime, const std::string& bytes) {
  return "data:" + mime + ";base64," + base64(bytes);
}

std::string table(const std::vector<std::string>& headers,
                  const std::vector<std::vector<std::string>>& rows,
                  const std::vector<std::size_t>& numeric) {
  auto is_numeric = [&](std::size_t col) {
    return std::find(numeric.begin(), numeric.end(), col) != numeric.end();
  };
  std::string out = "<div class=\"scroll\"><table>\n<thead><tr>";
  for (std::size_t c = 0; c < headers.size(); ++c)
    out +=
        std::string(is_numeric(c) ? "<th class=\"num\">" : "<th>") + escape(headers[c]) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c)
      out += std::string(is_numeric(c) ? "<td class=\"num\">" : "<td>") + escape(row[c]) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

std::string stacked_table(const std::vector<std::string>& headers,
                          const std::vector<std::vector<std::string>>& rows,
                          const std::vector<std::size_t>& numeric, std::size_t verdict) {
  auto cell_class = [&](std::size_t col) {
    std::string classes;
    if (std::find(numeric.begin(), numeric.end(), col) != numeric.end()) classes = "num";
    if (col == verdict) classes += classes.empty() ? "verdict" : " verdict";
    return classes.empty() ? std::string() : " class=\"" + classes + "\"";
  };
  std::string out = "<div class=\"scroll\"><table class=\"stack\">\n<thead><tr>";
  for (std::size_t c = 0; c < headers.size(); ++c)
    out += "<th" + cell_class(c) + ">" + escape(headers[c]) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c)
      out += "<td" + cell_class(c) + " data-label=\"" +
             escape(c < headers.size() ? headers[c] : std::string()) + "\">" + escape(row[c]) +
             "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

std::string bench_bars_svg(const experiments::BenchResult& bench) {
  std::vector<const experiments::Variant*> shown;
  double top = 0;
  for (const auto& v : bench.variants) {
    if (!v.available || v.value.samples.empty()) continue;
    shown.push_back(&v);
    top = std::max(top, v.value.max);
  }
  if (shown.empty() || top <= 0) return "";
  // Label above each bar (not beside it), so the chart stays legible when a phone scales the
  // 480-unit-wide drawing down to its screen.
  const int row = 46, bar_w = 330, width = 480;
  const int height = static_cast<int>(shown.size()) * row + 4;
  std::string svg = fmt::format(
      "<svg class=\"bars\" viewBox=\"0 0 {} {}\" width=\"{}\" "
      "role=\"img\" aria-label=\"{}: median per variant\">\n",
      width, height, width, escape(bench.name));
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const auto& v = *shown[i];
    const int y = static_cast<int>(i) * row;
    const double w = v.value.median / top * bar_w;
    const double lo = v.value.min / top * bar_w, hi = v.value.max / top * bar_w;
    // Grey: baseline; green / red: clearly faster / slower (the verdict's test); blue: no
    // clear difference, however far apart the medians look.
    const char* color = v.baseline.empty()        ? "#8a8f98"
                        : !v.verdict_clear        ? "#5b84b1"
                        : v.ratio_to_baseline > 1 ? "#2a9d5b"
                                                  : "#d1603d";
    svg += fmt::format("<text x=\"0\" y=\"{}\">{}</text>\n", y + 15, escape(v.label));
    svg += fmt::format("<rect x=\"0\" y=\"{}\" width=\"{:.1f}\" height=\"18\" fill=\"{}\"/>\n",
                       y + 21, std::max(w, 1.0), color);
    svg += fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" stroke=\"#222\"/>\n",
                       lo, hi, y + 30, y + 30);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{}</text>\n", std::max(w, hi) + 6, y + 35,
                       escape(bench_value_text(v.value.median, variant_unit(bench, v))));
  }
  return svg + "</svg>\n";
}

std::string unavailable(const std::string& what, const std::string& reason) {
  return "<p class=\"unavailable\"><strong>" + escape(what) + " unavailable:</strong> " +
         escape(reason) + "</p>\n";
}

}  // namespace threadmap::render::html
