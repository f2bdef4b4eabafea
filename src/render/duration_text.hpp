// A duration as a person reads it, never "0.0 s" for something that took time: 40 ms, 4.2 ms,
// 1.3 s, 95 s. One formatter for every page and table that says how long a part took.
#pragma once

#include <string>

namespace threadmap::render {

/// `seconds` as "0.8 ms", "40 ms", "1.3 s", "95 s" (two significant digits below a second,
/// one decimal below a minute); "0 s" for 0, "-" for a negative or non-finite value.
std::string duration_text(double seconds);

}  // namespace threadmap::render
