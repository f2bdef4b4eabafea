// The machine report as JSON (schema "threadmap.report/1", fields in docs/bench-and-report.md):
// the same data as the HTML page, with the full latency document and every bench document.
// Its writer and its reader (what `threadmap fleet` compares about a host) live here together,
// beside the writers of the documents it embeds, so the two cannot drift apart.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "src/fleet/host_record.hpp"
#include "src/report/report_data.hpp"
#include "threadmap/result.hpp"

namespace threadmap::render {

/// The whole report; `heatmap_file` names the PNG written next to it ("" when none).
nlohmann::json report_json(const report::MachineReport& report, const std::string& heatmap_file);

/// Reads a report's JSON text back as the facts fleet compares (fleet::HostRecordParser); `file`
/// names it in errors (EINVAL: not JSON, or not a threadmap.report/1). Parts a report lacks
/// (no latency, no benches, an older report) are left unknown, not refused.
Result<fleet::HostRecord> parse_host_record(const std::string& text, const std::string& file);

}  // namespace threadmap::render
