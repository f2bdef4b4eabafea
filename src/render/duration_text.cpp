#include "src/render/duration_text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace threadmap::render {

std::string duration_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "-";
  if (seconds == 0) return "0 s";
  const double ms = seconds * 1000;
  if (ms < 0.1) return fmt::format("{:.0f} us", seconds * 1e6);
  if (ms < 10) return fmt::format("{:.1f} ms", ms);
  if (ms < 999.5) return fmt::format("{:.0f} ms", ms);
  if (seconds < 59.95) return fmt::format("{:.1f} s", seconds);
  return fmt::format("{:.0f} s", seconds);
}

}  // namespace threadmap::render
