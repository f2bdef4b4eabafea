// PNG and SVG heatmaps encode, decode, have the size the layout promises, and show the
// matrix: a recorded one (AMD Ryzen 9 7950X, tests/data/latency) read back from the PNG gives
// many colours, white only on the diagonal, and brighter cells exactly where latency is higher.
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "src/latency/domains.hpp"
#include "src/latency/matrix.hpp"
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

// The encoded heatmap saved to `path` (render returns bytes; files are the caller's business).
bool save_heatmap(const std::string& path, render::ImageFormat format, const latency::Matrix& m,
                  const std::vector<std::size_t>& order, const render::HeatmapLabels& labels) {
  auto bytes = render::heatmap_image(format, m, order, labels);
  if (!bytes) return false;
  std::ofstream out(path, std::ios::binary);
  out << *bytes;
  return static_cast<bool>(out);
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
  ASSERT_TRUE(save_heatmap(path, render::ImageFormat::png, m, latency::numeric_order(m), labels));
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
  ASSERT_TRUE(save_heatmap(path, render::ImageFormat::svg, m, latency::numeric_order(m), labels));
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

TEST(HeatmapImage, BytesAreAnEncodedImageOfEachFormat) {
  auto m = matrix_of(2);
  render::HeatmapLabels labels{"t", "s", {}};
  auto order = latency::numeric_order(m);
  auto png = render::heatmap_image(render::ImageFormat::png, m, order, labels);
  ASSERT_TRUE(png);
  EXPECT_EQ(png->substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));  // the PNG signature
  auto svg = render::heatmap_image(render::ImageFormat::svg, m, order, labels);
  ASSERT_TRUE(svg);
  EXPECT_NE(svg->find("<svg"), std::string::npos);
}

// One pixel of a decoded RGB24 image, as 0xRRGGBB.
std::uint32_t pixel_at(cairo_surface_t* img, int x, int y) {
  const unsigned char* data = cairo_image_surface_get_data(img);
  const int stride = cairo_image_surface_get_stride(img);
  return *reinterpret_cast<const std::uint32_t*>(data + y * stride + x * 4) & 0xffffffu;
}

// Relative luminance (Rec. 709 weights) of 0xRRGGBB: the ramp runs dark (near) to bright (far).
double luminance(std::uint32_t rgb) {
  return 0.2126 * ((rgb >> 16) & 0xff) + 0.7152 * ((rgb >> 8) & 0xff) + 0.0722 * (rgb & 0xff);
}

TEST(HeatmapImage, PngShowsTheRecordedMatrixInColourOrder) {
  // 7950X: SMT siblings ~5 ns, same CCD ~15-21 ns, across the two CCDs ~70+ ns (AMD's
  // two-chiplet layout; numbers as recorded by core-to-core-latency, not by us).
  auto m =
      latency::load_matrix(std::string(THREADMAP_TEST_DATA) + "/latency/AMD_Ryzen_9_7950X.csv");
  ASSERT_TRUE(m) << m.error().message;
  const std::size_t n = m->size();
  ASSERT_GE(n, 16u);
  auto d = latency::analyse_domains(*m);
  render::HeatmapLabels labels{"AMD Ryzen 9 7950X", "recorded", d.domains};
  const std::string path = temp_path("recorded.png");
  const auto order = latency::numeric_order(*m);
  ASSERT_TRUE(save_heatmap(path, render::ImageFormat::png, *m, order, labels));
  cairo_surface_t* img = cairo_image_surface_create_from_png(path.c_str());
  ASSERT_EQ(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
  ASSERT_EQ(cairo_image_surface_get_format(img), CAIRO_FORMAT_RGB24);
  const render::CellGrid grid = render::heatmap_cell_grid(n);
  ASSERT_GE(grid.cell, 4);

  std::set<std::uint32_t> colours;
  std::vector<std::pair<double, double>> cells;  // (one-way ns, luminance) per off-diagonal cell
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t c = 0; c < n; ++c) {
      const std::uint32_t px =
          pixel_at(img, grid.x + static_cast<int>(c) * grid.cell + grid.cell / 2,
                   grid.y + static_cast<int>(r) * grid.cell + grid.cell / 2);
      if (r == c) {
        EXPECT_EQ(px, 0xffffffu) << "diagonal cell " << r << " is not white";
        continue;
      }
      const double ns = m->at(order[r], order[c]);
      ASSERT_TRUE(std::isfinite(ns));
      EXPECT_NE(px, 0xffffffu) << "measured cell " << r << "," << c << " is blank";
      colours.insert(px);
      cells.emplace_back(ns, luminance(px));
    }
  }
  cairo_surface_destroy(img);
  std::remove(path.c_str());

  // Not blank, not one flat colour: SMT, same-CCD and cross-CCD pairs at least.
  EXPECT_GE(colours.size(), 3u);
  // Colour order: a cell clearly slower (>10%) than another is never darker than it, and the
  // slowest cell is clearly brighter than the fastest.
  std::sort(cells.begin(), cells.end());
  double darkest_allowed = 0;
  std::size_t j = 0;
  for (const auto& [ns, lum] : cells) {
    while (j < cells.size() && cells[j].first * 1.1 < ns)
      darkest_allowed = std::max(darkest_allowed, cells[j++].second);
    EXPECT_GE(lum, darkest_allowed - 1e-9) << ns << " ns is darker than a cell 10% faster";
  }
  EXPECT_GT(cells.back().second, cells.front().second + 50);
}

TEST(HeatmapImage, SvgEmbedsTheCellsAsAnImage) {
  auto m = matrix_of(8);
  render::HeatmapLabels labels{"Test CPU", "method cas", {}};
  const std::string path = temp_path("cells.svg");
  ASSERT_TRUE(save_heatmap(path, render::ImageFormat::svg, m, latency::numeric_order(m), labels));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  // The cells are one embedded PNG (see latency_image.hpp); without it the picture is blank.
  EXPECT_NE(text.str().find("data:image/png;base64,"), std::string::npos);
  std::remove(path.c_str());
}

}  // namespace

TEST(HeatmapImage, AxisLabelsCoverBothHalvesOfAnInterleavedNumbering) {
  // 256 CPUs in topology order with SMT siblings side by side (0,128,1,129,...), as a
  // two-thread-per-core machine numbers them: labels must reach CPUs above 127 too.
  auto m = matrix_of(256);
  std::vector<std::size_t> order;
  for (std::size_t core = 0; core < 128; ++core) {
    order.push_back(core);
    order.push_back(core + 128);
  }
  auto positions = render::heatmap_label_positions(m, order);
  ASSERT_GE(positions.size(), 8u);
  std::size_t low = 0, high = 0;
  int highest = 0;
  for (std::size_t k : positions) {
    int cpu = m.cpus[order[k]];
    (cpu < 128 ? low : high)++;
    highest = std::max(highest, cpu);
  }
  EXPECT_GE(low, 8u);
  EXPECT_GE(high, 8u);
  EXPECT_EQ(positions.front(), 0u);
  EXPECT_EQ(positions.back(), order.size() - 1);  // the last position: CPU 255
  EXPECT_EQ(highest, 255);
  const int cell = render::heatmap_cell_grid(256).cell;
  for (std::size_t i = 1; i < positions.size(); ++i)
    EXPECT_GE(static_cast<int>(positions[i] - positions[i - 1]) * cell, 13) << i;
  // In numeric order the labels run 0, 8, ..., 248 and then the last CPU.
  auto numeric = render::heatmap_label_positions(m, latency::numeric_order(m));
  EXPECT_EQ(m.cpus[numeric.back()], 255);
  EXPECT_EQ(numeric[1] - numeric[0], 8u);
}

TEST(HeatmapImage, ALongTitleStaysInsideTheImage) {
  auto m = matrix_of(2);
  std::string path_title =
      "/home/someone/a/very/long/directory/name/that/goes/on/and/on/results/2026-11-25/"
      "AMD_EPYC_9654_dual_socket_run_7.csv: one-way core-to-core latency (2 CPUs)";
  render::HeatmapLabels labels{path_title, "method cas", {}};
  const std::string path = temp_path("title.png");
  ASSERT_TRUE(save_heatmap(path, render::ImageFormat::png, m, latency::numeric_order(m), labels));
  cairo_surface_t* img = cairo_image_surface_create_from_png(path.c_str());
  ASSERT_EQ(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
  const int width = cairo_image_surface_get_width(img);
  int dark_in_title = 0, dark_at_edge = 0;
  for (int y = 4; y < 30; ++y) {
    for (int x = 0; x < width; ++x) {
      bool dark = luminance(pixel_at(img, x, y)) < 128;
      dark_in_title += dark;
      if (x >= width - 10) dark_at_edge += dark;
    }
  }
  EXPECT_GT(dark_in_title, 100);  // the title is there
  EXPECT_EQ(dark_at_edge, 0);     // and ends before the right edge
  cairo_surface_destroy(img);
  std::remove(path.c_str());
}
