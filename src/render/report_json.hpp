// The machine report as JSON (schema "threadmap.report/1", fields in docs/bench-and-report.md):
// the same data as the HTML page, with the full latency document and every bench document.
// The writer is here, beside the writers of the documents it embeds; the reader belongs to the
// one that reads it back (fleet/report_reader: what `threadmap fleet` compares about a host),
// and a round-trip test binds the two (tests/unit/report/report_json_test.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "src/report/report_data.hpp"

namespace threadmap::render {

/// The whole report; `heatmap_file` names the PNG written next to it ("" when none).
nlohmann::json report_json(const report::MachineReport& report, const std::string& heatmap_file);

}  // namespace threadmap::render
