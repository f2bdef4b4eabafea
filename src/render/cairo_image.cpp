#include "src/render/cairo_image.hpp"

#include <cairo-svg.h>

#include <cerrno>

namespace threadmap::render {
namespace {

cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

}  // namespace

Result<ImageFormat> image_format_for(const std::string& path) {
  auto ends_with = [&](const char* ext) {
    const std::string e = ext;
    return path.size() > e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  if (ends_with(".png")) return ImageFormat::png;
  if (ends_with(".svg")) return ImageFormat::svg;
  return Error::invalid("cannot tell the image format of '" + path + "' (use .png or .svg)");
}

Result<std::string> draw_image(ImageFormat format, int width, int height,
                               const std::function<void(cairo_t*)>& draw, const std::string& what) {
  std::string bytes;
  cairo_surface_t* surface =
      format == ImageFormat::svg
          ? cairo_svg_surface_create_for_stream(append_bytes, &bytes, width, height)
          : cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
  cairo_t* cr = cairo_create(surface);
  draw(cr);
  cairo_status_t status = cairo_status(cr);
  cairo_destroy(cr);
  if (status == CAIRO_STATUS_SUCCESS && format == ImageFormat::png)
    status = cairo_surface_write_to_png_stream(surface, append_bytes, &bytes);
  cairo_surface_finish(surface);  // an SVG surface writes its last bytes here
  if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_status(surface);
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS)
    return Error::from_errno(EIO, "cannot draw " + what + ": " + cairo_status_to_string(status));
  return bytes;
}

}  // namespace threadmap::render
