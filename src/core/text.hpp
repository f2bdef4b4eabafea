// The small text helpers every layer above os shares, one definition each: a list joined with a
// separator, NUMA nodes written as a kernel list, a duration as a person reads it. Pure
// functions. Trimming and small files are os's (src/os/small_text.hpp), medians and quantiles
// src/core/sample_stats.hpp; scripts/check-helpers.sh fails when any of them is defined again.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace threadmap {

/// `items` with `separator` between each two: {"a", "b"} -> "a, b"; "" for none.
std::string joined(const std::vector<std::string>& items, std::string_view separator = ", ");

/// NUMA node numbers (any order, repeats allowed) as the kernel writes a node list, which
/// numactl, /sys and `--mem` read: {3, 0, 1, 2, 5} -> "0-3,5"; "" for none.
std::string node_list(const std::vector<int>& nodes);

/// `seconds` as "0.8 ms", "40 ms", "1.3 s", "95 s" (two significant digits below a second,
/// one decimal below a minute, microseconds below 0.1 ms); "0 s" for 0, "-" for a negative or
/// non-finite value. Never "0.0 s" for something that took time.
std::string duration_text(double seconds);

}  // namespace threadmap
