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

// Each variant against its baseline as a ratio on a log scale centred on the baseline (1x): a
// factor of 43 is a long bar to the right, 1.38x slower a short one to the left, equal factors
// equal lengths whatever the unit. A baseline is the centre line (its row says its value); a
// reference (a floor in another unit, not compared) is a row of text, never a bar.
std::string bench_bars_svg(const experiments::BenchResult& bench) {
  std::vector<const experiments::Variant*> shown;
  double extent = 1;  // log2 of the largest factor drawn; at least 2x, so 1.05x stays short
  for (const auto& v : bench.variants) {
    if (!v.available || v.value.samples.empty()) continue;
    shown.push_back(&v);
    if (!v.baseline.empty() && v.verdict != "reference" && v.ratio_to_baseline > 0)
      extent = std::max(extent, std::fabs(std::log2(v.ratio_to_baseline)));
  }
  if (shown.empty()) return "";
  // Per variant three lines, all from the left edge (nothing runs off a phone's screen): its
  // name, the bar, and what the bar says.
  const int row = 58, top = 22, width = 480, centre = 240, half = 190;
  const int height = top + static_cast<int>(shown.size()) * row + 4;
  const double factor = std::exp2(extent);
  std::string svg = fmt::format(
      "<svg class=\"bars\" viewBox=\"0 0 {} {}\" width=\"{}\" role=\"img\" "
      "aria-label=\"{}: each variant against its baseline, log scale\">\n",
      width, height, width, escape(bench.name));
  // The axis: its ends are the largest factor drawn, written as a scale (/8, x8), not as a
  // verdict: only a row's own words say faster or slower.
  svg += fmt::format(
      "<text x=\"0\" y=\"13\">&#8592; slower (/{:.3g})</text><text x=\"{}\" y=\"13\" "
      "text-anchor=\"middle\">1</text><text x=\"{}\" y=\"13\" "
      "text-anchor=\"end\">(&#215;{:.3g}) faster &#8594;</text>\n",
      factor, centre, width, factor);
  svg += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"16\" y2=\"{}\" stroke=\"#222\"/>\n", centre,
                     centre, height);
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const auto& v = *shown[i];
    const int y = top + static_cast<int>(i) * row;
    const std::string value = bench_value_text(v.value.median, variant_unit(bench, v));
    svg += fmt::format("<text x=\"0\" y=\"{}\">{}</text>\n", y + 14, escape(v.label));
    if (v.baseline.empty() || v.verdict == "reference" || v.ratio_to_baseline <= 0) {
      const char* what = v.baseline.empty() ? "baseline" : "reference, not compared";
      svg += fmt::format("<text x=\"0\" y=\"{}\" fill=\"#555\">{}: {}</text>\n", y + 48, what,
                         escape(value));
      continue;
    }
    const double len = std::log2(v.ratio_to_baseline) / extent * half;
    // Grey-blue: no clear difference, however far apart the medians look; green / red: clearly
    // faster / slower by the verdict's test.
    const char* color = !v.verdict_clear ? "#5b84b1" : len > 0 ? "#2a9d5b" : "#d1603d";
    const double x = len >= 0 ? centre : centre + len;
    svg += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"14\" fill=\"{}\"/>\n",
                       x, y + 20, std::max(std::fabs(len), 1.5), color);
    const double factor_of_row =
        v.ratio_to_baseline >= 1 ? v.ratio_to_baseline : 1 / v.ratio_to_baseline;
    const std::string said = v.verdict_clear
                                 ? fmt::format("{:.3g}x {}", factor_of_row,
                                               v.ratio_to_baseline >= 1 ? "faster" : "slower")
                                 : std::string("no clear difference");
    svg +=
        fmt::format("<text x=\"0\" y=\"{}\">{}: {}</text>\n", y + 48, escape(said), escape(value));
  }
  return svg + "</svg>\n";
}

std::string unavailable(const std::string& what, const std::string& reason) {
  return "<p class=\"unavailable\"><strong>" + escape(what) + " unavailable:</strong> " +
         escape(reason) + "</p>\n";
}

}  // namespace threadmap::render::html
