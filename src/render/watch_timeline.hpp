// The timeline picture of a watch: one row per thread, time left to right, each stretch
// colored by the CPU the thread was on — the "Thread #0: on CPU 5 ... on CPU 3" story at a
// glance.
#pragma once

#include <string>

#include "src/monitor/watch_history.hpp"
#include "src/render/cairo_image.hpp"
#include "threadmap/result.hpp"

namespace threadmap::render {

/// The step between the time axis's ticks for `span_s` seconds: 1, 2 or 5 times a power of ten,
/// so the ticks fall on round times (0, 200, 400 ms; not 141, 281, 422 ms), 4 to 9 of them.
double tick_step(double span_s);

/// Draws the timeline and returns the encoded image (PNG or SVG bytes). Rows get thinner for
/// many threads (the picture stays under about 4,000 pixels tall); names are written when rows
/// are tall enough. Where the history knows each span's CPU time, a thread that ran is a full
/// bar and one that waited on its CPU (asleep in a join, a barrier, a read) a thin line, so the
/// two can be told apart. A followed family's rows are grouped by process and labelled with it.
/// `watched_s` is the summary's duration, given in the title beside the
/// time the samples cover (< 0: not given). Fails with the cairo error when drawing fails.
Result<std::string> watch_timeline_image(const monitor::WatchHistory& history, ImageFormat format,
                                         double watched_s = -1);

}  // namespace threadmap::render
