// Rendering `threadmap watch`: the live table, the end-of-watch summary and its JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "src/monitor/watch_history.hpp"

namespace threadmap::render {

/// The live table for the latest sample: one row per live thread (busiest first, at most
/// `max_rows`, then a "... N more" line) with CPU now, CPU % and migrations/s and switches/s
/// over the last interval.
std::string watch_live_table(const monitor::WatchHistory& history, size_t max_rows);

/// The summary table: per thread CPUs visited, migrations (total and /s), context switches/s,
/// CPU time, share of samples on the planned CPU; then the totals and where numbers come from.
std::string watch_summary_text(const monitor::WatchSummary& summary);

/// The summary of a program that exited before the first sample: how long it ran, and that no
/// thread was seen.
std::string watch_empty_text(const monitor::WatchSummary& summary);

/// JSON, schema "threadmap.watch/1": the summary plus each thread's CPU spans.
nlohmann::json watch_json(const monitor::WatchSummary& summary,
                          const monitor::WatchHistory& history);

}  // namespace threadmap::render
