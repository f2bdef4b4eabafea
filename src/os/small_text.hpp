// The small text helpers of the bottom layer, one definition each for every layer above: text
// with its surrounding white space trimmed, and the small kernel files (sysfs attributes, one
// value or one line) read whole, where absent and unreadable both mean "not known". Pure
// helpers of upper layers (joining, node lists, durations) are in src/core/text.hpp; medians
// and quantiles in src/core/sample_stats.hpp (scripts/check-helpers.sh keeps each one home).
#pragma once

#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace threadmap::os {

/// `text` without the white space (isspace: blanks, tabs, CR, LF) at either end. Inline, so
/// that a pure parser using it (CpuSet's, the matrix reader's) links without the file readers
/// below (the fuzz targets compile those parsers alone).
inline std::string_view trimmed(std::string_view text) {
  auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

/// The trimmed contents of a small file such as a sysfs attribute; "" when the file is absent,
/// unreadable or larger than `max_bytes`.
std::string read_small_file(const std::string& path, std::size_t max_bytes = 1 << 16);

/// The names in directory `path`, sorted, without "." and ".."; none when it cannot be listed.
std::vector<std::string> directory_entries(const std::string& path);

}  // namespace threadmap::os
