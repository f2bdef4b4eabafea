// `threadmap run --thread-cache --stats`: the thread cache's statistics for the whole process
// tree as text for stderr (the program's stdout stays clean).
#pragma once

#include <string>

#include "src/apply/cache_stats.hpp"

namespace threadmap::render {

/// Lines starting "threadmap: ": the processes, the creates and how many the cache served (%),
/// the retirements by cause (most first), and with several processes one line per process that
/// created threads (pid, comm, creates, reuse; the first `max_process_rows`, then how many
/// more), how many created none, and how many lines of the file could not be read. Every figure
/// is a count the cache made in each process; a run whose processes wrote nothing says so.
std::string cache_stats_text(const apply::CacheStatsSummary& summary,
                             std::size_t max_process_rows = 20);

}  // namespace threadmap::render
