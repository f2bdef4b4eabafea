// Clock reads for batch timing.
#include "src/latency/clock.hpp"

#include <algorithm>

#include "src/os/monotonic_clock.hpp"

namespace threadmap::latency {

std::int64_t now_ns() { return os::monotonic_ns(); }

double clock_resolution_ns() {
  const double reported = os::monotonic_resolution_ns();
  // Smallest observed tick over a few hundred steps: spin until the clock moves, keep the step.
  std::int64_t smallest = -1;
  for (int trial = 0; trial < 200; ++trial) {
    std::int64_t start = now_ns();
    std::int64_t next = start;
    for (int spins = 0; next == start && spins < 1000000; ++spins) next = now_ns();
    std::int64_t step = next - start;
    if (step > 0 && (smallest < 0 || step < smallest)) smallest = step;
  }
  return std::max(reported, smallest > 0 ? static_cast<double>(smallest) : reported);
}

}  // namespace threadmap::latency
