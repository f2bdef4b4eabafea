// Showing a fleet comparison (`threadmap fleet`): text, JSON ("threadmap.fleet/1"), HTML.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "src/fleet/fleet_compare.hpp"
#include "src/render/html_page.hpp"

namespace threadmap::render {

/// One row per group (outliers first), then each outlier host with its differences.
std::string fleet_text(const fleet::FleetReport& fleet);
nlohmann::json fleet_json(const fleet::FleetReport& fleet);
/// A self-contained page in the report's shell (html_page.hpp, header from `meta`): the groups,
/// the outliers with their differences, the hosts set aside, the noise and unreadable files.
std::string fleet_html(const fleet::FleetReport& fleet, const html::PageMeta& meta = {});

}  // namespace threadmap::render
