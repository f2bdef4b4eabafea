// The timeline picture of a watch: one row per thread, time left to right, each stretch
// colored by the CPU the thread was on — the "Thread #0: on CPU 5 ... on CPU 3" story at a
// glance.
#pragma once

#include <string>

#include "src/monitor/watch_history.hpp"
#include "src/render/cairo_image.hpp"
#include "threadmap/result.hpp"

namespace threadmap::render {

/// Draws the timeline and returns the encoded image (PNG or SVG bytes). Rows get thinner for
/// many threads (the picture stays under about 4,000 pixels tall); names are written when rows
/// are tall enough. Fails with the cairo error when drawing fails.
Result<std::string> watch_timeline_image(const monitor::WatchHistory& history, ImageFormat format);

}  // namespace threadmap::render
