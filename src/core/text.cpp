#include "src/core/text.hpp"

#include <algorithm>
#include <cmath>

#include "src/core/format_text.hpp"

namespace threadmap {

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

std::string node_list(const std::vector<int>& nodes) {
  std::vector<int> sorted = nodes;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(sorted[i]);
    if (j > i) out += '-' + std::to_string(sorted[j]);
    i = j + 1;
  }
  return out;
}

std::string duration_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "-";
  if (seconds == 0) return "0 s";
  const double ms = seconds * 1000;
  if (ms < 0.1) return format_text("%.0f us", seconds * 1e6);
  if (ms < 10) return format_text("%.1f ms", ms);
  if (ms < 999.5) return format_text("%.0f ms", ms);
  if (seconds < 59.95) return format_text("%.1f s", seconds);
  return format_text("%.0f s", seconds);
}

}  // namespace threadmap
