// The clock that times batches: steady_clock (CLOCK_MONOTONIC), whose usable resolution is
// checked before measuring, because a clock coarser than a round trip turns latencies into 0 ns
// or multiples of its tick (seen in published matrices).
#pragma once

#include <cstdint>

namespace threadmap::latency {

/// Nanoseconds from the monotonic clock.
std::int64_t now_ns();

/// The clock's effective resolution in ns: the larger of what clock_getres reports and the
/// smallest non-zero step seen between back-to-back reads (which includes the cost of a read).
/// Takes well under a millisecond.
double clock_resolution_ns();

}  // namespace threadmap::latency
