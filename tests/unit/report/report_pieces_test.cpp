// Pieces of the report that must be exactly right: base64 for the embedded images, escaping,
// the commands that apply a recommendation, and charts that reference nothing outside the page.
#include <gtest/gtest.h>

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
