// Clock reads for batch timing.
#include "src/latency/clock.hpp"

#include <time.h>

#include <algorithm>

namespace threadmap::latency {

std::int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

double clock_resolution_ns() {
  timespec res{};
  double reported = 1;
  if (clock_getres(CLOCK_MONOTONIC, &res) == 0) {
    reported = static_cast<double>(res.tv_sec) * 1e9 + static_cast<double>(res.tv_nsec);
  }
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
