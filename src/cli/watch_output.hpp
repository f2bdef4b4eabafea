// Printing what a watch saw, shared by `watch` and `run --watch`: the summary (stdout, or stderr
// when a program's own output must stay clean) and the files asked for.
#pragma once

#include <string>

#include "src/apply/cache_stats.hpp"
#include "src/monitor/watch_session.hpp"
#include "threadmap/result.hpp"

namespace threadmap::cli {

/// Files a watch writes besides the summary; empty = not asked for.
struct WatchOutputs {
  std::string json_path;      ///< threadmap.watch/1 JSON
  std::string timeline_path;  ///< PNG or SVG, by extension
};

/// Checks the outputs before anything runs (timeline format, writable paths). Fails naming the
/// flag: a timeline format or outputs that conflict are Fault::input, a path the filesystem
/// refuses the work's fault.
Status check_watch_outputs(const WatchOutputs& outputs);

/// Prints the summary of `watched` (or its error) and writes the outputs. Returns false, after
/// printing the one error line, when watching or writing failed. CACHE: the thread cache's
/// counts for the watched processes, carried in the JSON as "thread_cache" (absent: none).
bool print_watch_outcome(const Result<monitor::WatchResult>& watched, const WatchOutputs& outputs,
                         bool summary_to_stderr, const apply::CacheStatsSummary* cache = nullptr);

}  // namespace threadmap::cli
