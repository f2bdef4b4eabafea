// The report's "At a glance" line carries the warning of an unstable latency measurement, where
// the number is shown (issue: a bimodal pair was printed as 28.5 ns with no warning).
#include <gtest/gtest.h>

#include "src/render/report_html.hpp"

using namespace threadmap;

namespace {
report::MachineReport with_pair(bool unstable) {
  report::MachineReport r;
  r.latency.status.available = true;
  r.latency.matrix.cpus = {0, 1};
  r.latency.matrix.one_way_ns = {0, 28.5, 28.5, 0};
  latency::Measurement m;
  m.matrix = r.latency.matrix;
  latency::PairStats p;
  p.cpu_a = 0;
  p.cpu_b = 1;
  p.median_ns = 28.5;
  p.rechecked = true;
  p.recheck_median_ns = unstable ? 104.0 : 28.7;
  p.unstable = unstable;
  m.pairs.push_back(p);
  r.latency.measurement = m;
  return r;
}

std::string glance(const std::string& page) {
  size_t a = page.find("<section id=\"glance\">");
  size_t b = page.find("</section>", a);
  return a == std::string::npos ? "" : page.substr(a, b - a);
}
}  // namespace

TEST(ReportGlance, UnstableLatencyIsWarnedWhereTheNumberIsShown) {
  std::string unstable = glance(render::report_html(with_pair(true), {}));
  EXPECT_NE(unstable.find("WARNING: latency unstable"), std::string::npos) << unstable;
  EXPECT_NE(unstable.find("1 of 1 pair(s)"), std::string::npos) << unstable;
  EXPECT_NE(unstable.find("spread 114%"), std::string::npos) << unstable;
  std::string stable = glance(render::report_html(with_pair(false), {}));
  EXPECT_EQ(stable.find("WARNING"), std::string::npos) << stable;
  EXPECT_NE(stable.find("28.5"), std::string::npos) << stable;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The report as collected: an unstable matrix carries its stability finding, and the glance says
// it once (it said it twice, in two wordings); one pair is one value, not "28.5 ns to 28.5 ns".
TEST(ReportGlance, TheUnstableWarningIsSaidOnceAndOnePairIsOneValue) {
  report::MachineReport r = with_pair(true);
  r.latency.matrix.stability = latency::judge_stability(1, 1, 0.03);
  r.latency.stability_finding = r.latency.matrix.stability.reason;
  const std::string page = glance(render::report_html(r, {}));
  EXPECT_EQ(count_of(page, "WARNING"), 1u) << page;
  EXPECT_EQ(count_of(page, "moved between passes"), 1u) << page;
  EXPECT_NE(page.find("28.5 ns for its one CPU pair"), std::string::npos) << page;
  EXPECT_EQ(page.find("28.5 ns to 28.5 ns"), std::string::npos) << page;
}
