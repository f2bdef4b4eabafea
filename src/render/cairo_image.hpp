// Pictures as bytes: every image threadmap draws (heatmaps, timelines) is drawn by cairo into
// memory and returned encoded, so the caller decides where it goes (a file written whole or not
// at all through src/os, stdout, or embedded in the HTML report). Render never writes files.
#pragma once

#include <cairo.h>

#include <functional>
#include <string>

#include "threadmap/result.hpp"

namespace threadmap::render {

/// Image formats we write.
enum class ImageFormat { png, svg };

/// The format for a file name by its extension (.png / .svg). EINVAL naming it otherwise.
Result<ImageFormat> image_format_for(const std::string& path);

/// Draws a `width` x `height` picture with `draw` and returns it encoded: PNG (RGB24 pixels) or
/// SVG (points). Fails with EIO and cairo's reason, naming `what`, when cairo fails.
Result<std::string> draw_image(ImageFormat format, int width, int height,
                               const std::function<void(cairo_t*)>& draw, const std::string& what);

}  // namespace threadmap::render
