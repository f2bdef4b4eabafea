// Showing a merged job (`threadmap job`): text, JSON ("threadmap.job/1") and a self-contained
// HTML page.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "src/cluster/job_merge.hpp"
#include "src/cluster/rank_share.hpp"
#include "src/render/html_page.hpp"

namespace threadmap::render {

/// Per host: a CPU x rank table of thread-seconds, then the findings (or "no findings").
std::string job_text(const cluster::JobReport& job);

/// The same as JSON, schema "threadmap.job/1" (docs/json.md).
nlohmann::json job_json(const cluster::JobReport& job);

/// `plan --ranks N`: one row per rank (CPUs, memory nodes, how it was split).
std::string rank_shares_text(const std::vector<cluster::RankShare>& shares);
nlohmann::json rank_shares_json(const std::vector<cluster::RankShare>& shares);

/// One page in the report's shell (html_page.hpp, header from `meta`): findings first, the
/// start-up windows, then per host a CPU x rank grid shaded by seconds and each rank's
/// timeline (its threads over time, running vs waiting, inside vs outside its share).
std::string job_html(const cluster::JobReport& job, const html::PageMeta& meta = {});

}  // namespace threadmap::render
