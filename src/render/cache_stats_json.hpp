// The thread cache's counts as JSON: the "thread_cache" member of threadmap.watch/1 when the
// watched processes ran under the cache with TM_CACHE_STATS=FILE (docs/json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "src/apply/cache_stats.hpp"

namespace threadmap::render {

/// {"creates", "from_cache", "from_system", "bypassed", "reuse" (null when nothing was
/// created), "retired": [{"cause", "threads"}], "processes": [{"pid", "ppid", "comm",
/// "creates", "from_cache", "from_system", "bypassed", "final"}], "unfinished", "running",
/// "unread_lines", "evidence": "counted by the thread cache in each process"}.
nlohmann::json cache_stats_json(const apply::CacheStatsSummary& summary);

}  // namespace threadmap::render
