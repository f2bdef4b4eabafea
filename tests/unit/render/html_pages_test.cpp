// The three HTML pages (report, job, fleet) share one shell: the same style sheet and
// phone rules, a header that says when, where, by which version and command the page was made,
// and nothing outside the page. The job page draws each rank's threads over time, running vs
// waiting, inside vs outside the rank's share.
#include <gtest/gtest.h>

#include <string>

#include "src/render/fleet_view.hpp"
#include "src/render/job_view.hpp"
#include "src/render/report_html.hpp"
#include "src/render/report_html_util.hpp"

using namespace threadmap;

namespace {

std::string between(const std::string& page, const std::string& open, const std::string& close) {
  const size_t a = page.find(open);
  if (a == std::string::npos) return "";
  const size_t b = page.find(close, a + open.size());
  return b == std::string::npos ? "" : page.substr(a, b - a);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const render::html::PageMeta kMeta{"2026-11-26T21:00:00Z", "threadmap job /data/job-17",
                                   "threadmap 9.9.9", "node-a17"};

cluster::RecordSpan span(double a, double b, int cpu, double cpu_s) {
  cluster::RecordSpan s;
  s.start_s = a;
  s.end_s = b;
  s.cpu = cpu;
  s.cpu_s = cpu_s;
  return s;
}

// Rank 0 (share CPU 0): one thread running at home, one asleep, one runnable but starved (it
// got 0.5% of a CPU and waited 75% of the time on a run queue). Rank 1 (share CPU 1): one
// thread running on CPU 0, outside its share.
cluster::JobReport two_rank_job() {
  cluster::JobHost h;
  h.host = "node-a17";
  h.ranks = 2;
  h.ranks_seen = {0, 1};
  h.cpus = *CpuSet::parse_list("0-1");
  h.shares = {{0, *CpuSet::parse_list("0")}, {1, *CpuSet::parse_list("1")}};
  cluster::RecordThread busy{101, "solver", 0, {span(0, 2, 0, 1.9)}};
  cluster::RecordThread idle{102, "progress", 0, {span(0, 2, 0, 0.01)}};
  cluster::RecordThread stray{201, "solver", 0, {span(0, 2, 0, 1.8)}};
  cluster::RecordSpan queued_span = span(0, 2, 0, 0.01);
  queued_span.wait_s = 1.5;
  cluster::RecordThread queued{103, "queued", 0, {queued_span}};
  h.timelines = {{0, {busy, idle, queued}}, {1, {stray}}};
  h.seconds = {{{0, 0}, 4.0}, {{0, 1}, 2.0}};
  cluster::JobReport job;
  job.dir = "/data/job-17";
  job.records = 2;
  job.hosts = {h};
  return job;
}

}  // namespace

TEST(HtmlPages, ReportJobAndFleetShareOneStyleSheetAndHeader) {
  report::MachineReport r;
  r.generated_utc = "2026-11-26T21:00:00Z";
  r.threadmap_version = "threadmap 9.9.9";
  r.host = "node-a17";
  r.command_line = "threadmap report --quick";
  const std::string report = render::report_html(r, {});
  const std::string job = render::job_html(two_rank_job(), kMeta);
  fleet::FleetReport f;
  f.dir = "/data/fleet";
  const std::string fleet = render::fleet_html(f, kMeta);
  const std::string style = between(report, "<style>", "</style>");
  ASSERT_NE(style.find("@media (max-width: 40rem)"), std::string::npos) << "phone rules";
  EXPECT_EQ(between(job, "<style>", "</style>"), style);
  EXPECT_EQ(between(fleet, "<style>", "</style>"), style);
  for (const std::string* page : {&report, &job, &fleet}) {
    const std::string header = between(*page, "<header>", "</header>");
    EXPECT_NE(header.find("2026-11-26T21:00:00Z"), std::string::npos) << header;
    EXPECT_NE(header.find("node-a17"), std::string::npos) << header;
    EXPECT_NE(header.find("threadmap 9.9.9"), std::string::npos) << header;
    EXPECT_NE(header.find("<code>threadmap "), std::string::npos) << header;
    EXPECT_NE(page->find("name=\"viewport\""), std::string::npos);
    EXPECT_EQ(page->find("http://"), std::string::npos);
    EXPECT_EQ(page->find("https://"), std::string::npos);
    EXPECT_NE(page->rfind("</html>"), std::string::npos);
  }
}

TEST(HtmlPages, JobPageDrawsEachRanksThreadsRunningOrWaiting) {
  const std::string page = render::job_html(two_rank_job(), kMeta);
  EXPECT_EQ(count(page, "<svg class=\"timeline\""), 2u) << "one timeline per rank";
  const std::string rank0 = between(page, "aria-label=\"rank 0:", "</svg>");
  const std::string rank1 = between(page, "aria-label=\"rank 1:", "</svg>");
  EXPECT_NE(rank0.find("101 solver"), std::string::npos) << rank0;
  EXPECT_NE(rank0.find("102 progress"), std::string::npos) << rank0;
  EXPECT_EQ(count(rank0, ", running</title>"), 1u) << rank0;
  EXPECT_EQ(count(rank0, ", asleep</title>"), 1u) << rank0;
  // Runnable but under 10% of a CPU is not asleep: its own colour and what it waited.
  EXPECT_EQ(count(rank0, "runnable but starved: waited 1.50 s for a CPU, ran 0.01 s"), 1u) << rank0;
  EXPECT_EQ(count(rank0, "fill=\"#e09a1a\""), 1u) << rank0;
  // A time axis a reader can use: 0 to 2 s in ticks of 0.2 s, each labelled.
  for (const char* tick : {">0.0 s<", ">0.4 s<", ">1.0 s<", ">1.6 s<", ">2.0 s<"})
    EXPECT_NE(rank0.find(tick), std::string::npos) << tick << "\n" << rank0;
  EXPECT_EQ(count(rank0, " s</text>"), 11u) << rank0;
  EXPECT_NE(rank1.find("running, outside the rank's share"), std::string::npos) << rank1;
  EXPECT_NE(rank1.find("rgb(220,50,40)"), std::string::npos) << "outside the share is red";
  EXPECT_EQ(rank0.find("rgb(220,50,40)"), std::string::npos) << "rank 0 stayed home";
}

TEST(HtmlPages, BenchTablesMarkTheVerdictAndStackOnAPhone) {
  const std::string table = render::html::stacked_table(
      {"variant", "vs baseline", "median"}, {{"pinned", "3.85x faster", "1.32 ms"}}, {2}, 1);
  EXPECT_NE(table.find("<table class=\"stack\">"), std::string::npos) << table;
  EXPECT_NE(table.find("<td class=\"verdict\" data-label=\"vs baseline\">3.85x faster</td>"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("<td class=\"num\" data-label=\"median\">1.32 ms</td>"), std::string::npos)
      << table;
}
