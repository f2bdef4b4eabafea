#include "src/os/monotonic_clock.hpp"

#include <time.h>

#include <cerrno>

namespace threadmap::os {

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

double monotonic_resolution_ns() {
  timespec res{};
  if (clock_getres(CLOCK_MONOTONIC, &res) != 0) return 1;
  return static_cast<double>(res.tv_sec) * 1e9 + static_cast<double>(res.tv_nsec);
}

bool sleep_until_ns(std::int64_t deadline_ns, bool (*stop_early)()) {
  timespec at{};
  at.tv_sec = static_cast<time_t>(deadline_ns / 1000000000);
  at.tv_nsec = static_cast<long>(deadline_ns % 1000000000);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) == EINTR)
    if (stop_early && stop_early()) return false;
  return true;
}

void sleep_ns(std::int64_t ns) { sleep_until_ns(monotonic_ns() + ns); }

std::string utc_timestamp() {
  time_t now = time(nullptr);
  tm parts{};
  gmtime_r(&now, &parts);
  char buffer[32];
  strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return buffer;
}

}  // namespace threadmap::os
