// Clocks and sleeps. CLOCK_MONOTONIC throughout: intervals must not jump with wall-clock changes.
#pragma once

#include <cstdint>
#include <string>

namespace threadmap::os {

/// CLOCK_MONOTONIC now, in ns.
std::int64_t monotonic_ns();
/// The resolution CLOCK_MONOTONIC reports (clock_getres), in ns; 1 when it cannot be read.
double monotonic_resolution_ns();
/// Sleeps until CLOCK_MONOTONIC reaches `deadline_ns`. A signal that interrupts the sleep ends
/// it early (false) when `stop_early()` then says so; otherwise sleeping goes on. True once the
/// deadline passed.
bool sleep_until_ns(std::int64_t deadline_ns, bool (*stop_early)() = nullptr);
/// Sleeps `ns` nanoseconds (restarted after signals).
void sleep_ns(std::int64_t ns);
/// Now as UTC ISO 8601 ("2026-11-24T14:05:00Z").
std::string utc_timestamp();

}  // namespace threadmap::os
