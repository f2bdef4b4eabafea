#include "src/tune/duration.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace threadmap::tune {

Result<double> parse_duration(const std::string& text) {
  auto bad = [&] {
    return Error::invalid("'" + text + "' is not a duration (e.g. 30s, 500ms, 2m, 1h)");
  };
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.'))
    return bad();
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  std::string unit = end ? end : "";
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  if (unit == "ms") scale = 1e-3;
  if (unit == "m" || unit == "min") scale = 60;
  if (unit == "h") scale = 3600;
  if (scale == 0 || !std::isfinite(v)) return bad();
  if (v <= 0)
    return Error::invalid("'" + text + "' is no time at all: give more than 0 (e.g. 30s)");
  return v * scale;
}

}  // namespace threadmap::tune
