// `--budget` values: "90" or "90s" (seconds), "500ms", "2m", "1h"; decimals allowed.
#pragma once

#include <string>

#include "threadmap/result.hpp"

namespace threadmap::tune {

/// Seconds in `text`; EINVAL naming the text when it is not a positive duration.
Result<double> parse_duration(const std::string& text);

}  // namespace threadmap::tune
