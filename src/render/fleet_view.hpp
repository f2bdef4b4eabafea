// Showing a fleet comparison (`threadmap fleet`): text, JSON ("threadmap.fleet/1"), HTML.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "src/fleet/fleet_compare.hpp"

namespace threadmap::render {

/// One row per group (outliers first), then each outlier host with its differences.
std::string fleet_text(const fleet::FleetReport& fleet);
nlohmann::json fleet_json(const fleet::FleetReport& fleet);
/// A self-contained page: the same table, outliers first.
std::string fleet_html(const fleet::FleetReport& fleet);

}  // namespace threadmap::render
