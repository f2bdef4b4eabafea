// Pieces of the report that must be exactly right: base64 for the embedded images, escaping,
// the commands that apply a recommendation, and charts that reference nothing outside the page.
#include <gtest/gtest.h>

#include <cmath>

#include "src/render/report_html_util.hpp"
#include "src/report/report_data.hpp"

namespace threadmap {
namespace {

TEST(ReportHtml, Base64MatchesRfc4648Vectors) {
  using render::html::base64;
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foob"), "Zm9vYg==");
  EXPECT_EQ(base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64(std::string("\x89PNG", 4)), "iVBORw==");
}

TEST(ReportHtml, EscapesEverythingThatCouldOpenMarkup) {
  EXPECT_EQ(render::html::escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
}

TEST(ReportHtml, TablesEscapeCellsAndBarsStayInsideThePage) {
  std::string t = render::html::table({"a<b"}, {{"<script>"}});
  EXPECT_EQ(t.find("<script>"), std::string::npos);
  experiments::BenchResult b;
  b.name = "x";
  b.unit = "ms";
  experiments::Variant v;
  v.name = "os";
  v.label = "<os>";
  v.value = experiments::summarize_runs({2, 1, 3});
  b.variants = {v};
  std::string svg = render::html::bench_bars_svg(b);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("&lt;os&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("http"), std::string::npos);
  b.variants[0].available = false;
  EXPECT_EQ(render::html::bench_bars_svg(b), "") << "nothing ran, nothing drawn";
}

// The thread-cache chart: a 43x-faster row must be the longest bar, a 1.38x one short, equal
// factors equal lengths (a log scale centred on the baseline), and a reference floor in another
// unit is text, not a bar.
TEST(ReportHtml, BenchChartsDrawRatiosOnALogScaleAndReferencesAsText) {
  experiments::BenchResult b;
  b.name = "spawn";
  b.unit = "threads/s";
  auto row = [](const std::string& name, const std::string& baseline, double ratio, bool clear,
                const std::string& verdict) {
    experiments::Variant v;
    v.name = v.label = name;
    v.baseline = baseline;
    v.value = experiments::summarize_runs({100, 110, 120});
    v.ratio_to_baseline = ratio;
    v.verdict_clear = clear;
    v.verdict = verdict;
    return v;
  };
  b.variants = {row("glibc", "", 0, false, "baseline"), row("cache", "glibc", 43, true, "faster"),
                row("pinned", "glibc", 1 / 1.38, true, "slower"),
                row("slower twin", "glibc", 1 / 43.0, true, "slower"),
                row("floor", "glibc", 7, false, "reference")};
  const std::string svg = render::html::bench_bars_svg(b);
  std::vector<double> widths;
  for (std::size_t at = svg.find("<rect"); at != std::string::npos;
       at = svg.find("<rect", at + 1)) {
    const std::size_t w = svg.find("width=\"", at) + 7;
    widths.push_back(std::stod(svg.substr(w)));
  }
  ASSERT_EQ(widths.size(), 3u) << "one bar per compared row, none for the baseline or reference: "
                               << svg;
  EXPECT_NEAR(widths[0], 190, 0.5) << svg;  // 43x: the whole half
  EXPECT_NEAR(widths[1], std::log2(1.38) / std::log2(43) * 190, 0.5) << svg;
  EXPECT_NEAR(widths[2], widths[0], 0.5) << "1/43 as long as 43" << svg;
  EXPECT_NE(svg.find(">floor</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("reference, not compared: "), std::string::npos) << svg;
  EXPECT_NE(svg.find("43x faster"), std::string::npos) << svg;
}

TEST(ReportAdvice, CommandsApplyTheCpusInThreadOrder) {
  auto cmds = report::apply_commands({3, 17}, false);
  ASSERT_EQ(cmds.size(), 3u);
  EXPECT_EQ(cmds[0].command, "threadmap run --cpus 3,17 --policy compact -- ./app");
  EXPECT_EQ(cmds[1].command, "taskset -c 3,17 ./app");
  EXPECT_EQ(cmds[2].command, "OMP_PLACES='{3},{17}' OMP_PROC_BIND=close OMP_NUM_THREADS=2 ./app");
  EXPECT_NE(report::apply_commands({0}, true)[0].command.find("--thread-cache"), std::string::npos);
}

}  // namespace
}  // namespace threadmap
