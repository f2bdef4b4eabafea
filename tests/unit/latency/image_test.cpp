// PNG and SVG heatmaps are written, decode, and have the size the layout promises.
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "src/latency/domains.hpp"
#include "src/latency/ordering.hpp"
#include "src/render/latency_image.hpp"

using namespace threadmap;

namespace {

// cairo's text rendering caches fonts in fontconfig for the life of the process; under
// LeakSanitizer that cache reads as a leak. Release both once all tests ran (test-only: a
// library must not tear down process-wide font state another caller may still use).
class ReleaseFontCaches : public ::testing::Environment {
 public:
  void TearDown() override {
    cairo_debug_reset_static_data();
    FcFini();
  }
};
const auto* const kReleaseFonts = ::testing::AddGlobalTestEnvironment(new ReleaseFontCaches);

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "/threadmap_" + std::to_string(getpid()) + "_" + name;
}

latency::Matrix matrix_of(std::size_t n) {
  std::vector<int> cpus;
  for (std::size_t i = 0; i < n; ++i) cpus.push_back(static_cast<int>(i));
  latency::Matrix m = latency::make_matrix(cpus);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < i; ++j) m.at(i, j) = m.at(j, i) = (i / 4 == j / 4) ? 20 : 80;
  }
  return m;
}

void check_png(std::size_t n) {
  auto m = matrix_of(n);
  auto d = latency::analyse_domains(m);
  render::HeatmapLabels labels{"Test CPU: one-way latency", "method cas", d.domains};
  std::string path = temp_path("heat" + std::to_string(n) + ".png");
  ASSERT_TRUE(render::write_heatmap_png(path, m, latency::numeric_order(m), labels));
  cairo_surface_t* img = cairo_image_surface_create_from_png(path.c_str());
  ASSERT_EQ(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
  auto size = render::heatmap_image_size(n);
  EXPECT_EQ(cairo_image_surface_get_width(img), size.width);
  EXPECT_EQ(cairo_image_surface_get_height(img), size.height);
  EXPECT_GE(size.width, 400);
  EXPECT_LE(size.width, 1400);  // 512 CPUs still fit a screen
  cairo_surface_destroy(img);
  std::remove(path.c_str());
}

TEST(HeatmapImage, PngDecodesWithExpectedSizeAtTwoAndFiveHundredTwelveCpus) {
  check_png(2);
  check_png(512);
}

TEST(HeatmapImage, SvgIsWrittenWithExpectedSize) {
  auto m = matrix_of(16);
  auto d = latency::analyse_domains(m);
  render::HeatmapLabels labels{"Test CPU", "method cas", d.domains};
  std::string path = temp_path("heat.svg");
  ASSERT_TRUE(render::write_heatmap_svg(path, m, latency::numeric_order(m), labels));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string svg = text.str();
  auto size = render::heatmap_image_size(16);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("width=\"" + std::to_string(size.width) + "pt\""), std::string::npos);
  EXPECT_NE(svg.find("height=\"" + std::to_string(size.height) + "pt\""), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  std::remove(path.c_str());
}

TEST(HeatmapImage, UnwritablePathIsAnErrorNamingIt) {
  auto m = matrix_of(2);
  render::HeatmapLabels labels{"t", "s", {}};
  auto order = latency::numeric_order(m);
  auto st = render::write_heatmap_png("/nonexistent-dir/x.png", m, order, labels);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("/nonexistent-dir/x.png"), std::string::npos);
  auto st2 = render::write_heatmap_svg("/nonexistent-dir/x.svg", m, order, labels);
  ASSERT_FALSE(st2);
}

}  // namespace
