// The machine report as ONE self-contained HTML page: inline CSS, images embedded as data:
// URIs, no script, no URL outside the page, readable on a phone (fluid width, scrollable
// tables). Sections: at a glance, topology, latency heatmap and matrix, domains vs hwloc,
// numbering lies, recommendations with the commands to apply them, SMT guidance, thread cache,
// key benchmarks, how it was measured.
#pragma once

#include <string>

#include "src/report/report_data.hpp"

namespace threadmap::render {

/// Images the page embeds; an empty PNG means "not drawn", with the reason.
struct ReportImages {
  std::string heatmap_png;     ///< PNG bytes of the latency heatmap
  std::string heatmap_reason;  ///< why there is no heatmap (when heatmap_png is empty)
};

/// Draws the latency heatmap of `report` (topology order, domains outlined) as PNG bytes in
/// ReportImages; when the latency part is unavailable or drawing fails, the reason instead.
ReportImages draw_report_images(const report::MachineReport& report);

/// The page.
std::string report_html(const report::MachineReport& report, const ReportImages& images);

namespace detail {
/// The sections after the latency ones (recommendations, SMT, thread cache, benchmarks).
std::string advice_and_bench_sections(const report::MachineReport& report);
}  // namespace detail

}  // namespace threadmap::render
