// `threadmap report --quick --out DIR`: finishes in time, writes report.html (well-formed, one
// self-contained page: images as data: URIs, no external URL or file reference) and
// report.json (schema threadmap.report/1) with every part present or marked unavailable.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "html_check.hpp"

namespace {

namespace fs = std::filesystem;

struct Ran {
  int status = -1;
  std::string out;
  double seconds = 0;
};

Ran run(const std::string& args) {
  Ran r;
  const auto start = std::chrono::steady_clock::now();
  FILE* p = popen((std::string(THREADMAP_BIN) + " " + args + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The run quick_run.sh made for every test of the suite, when ctest names its folder
// (THREADMAP_REPORT_RUN, set with the fixture in CMakeLists.txt): nullopt when there is none.
std::optional<Ran> shared_run(const fs::path& run_dir) {
  if (!fs::exists(run_dir / "status")) return std::nullopt;
  Ran r;
  r.status = std::stoi(slurp(run_dir / "status"));
  r.seconds = std::stod(slurp(run_dir / "seconds"));
  r.out = slurp(run_dir / "output");
  return r;
}

// One quick report shared by the tests (it takes seconds, not milliseconds): under ctest, the
// fixture's run; run alone, the suite's own.
class Report : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (const char* run_dir = getenv("THREADMAP_REPORT_RUN")) {
      if (auto shared = shared_run(run_dir)) {
        dir_ = new fs::path(fs::path(run_dir) / "out");
        ran_ = new Ran(*shared);
        owned_ = false;
        return;
      }
    }
    dir_ =
        new fs::path(fs::temp_directory_path() / ("threadmap-report-" + std::to_string(getpid())));
    fs::remove_all(*dir_);
    ran_ = new Ran(run("report --quick --out " + dir_->string()));
  }
  static void TearDownTestSuite() {
    if (owned_) fs::remove_all(*dir_);
    delete dir_;
    delete ran_;
  }
  static fs::path* dir_;
  static Ran* ran_;
  static bool owned_;
};
fs::path* Report::dir_ = nullptr;
Ran* Report::ran_ = nullptr;
bool Report::owned_ = true;

TEST_F(Report, QuickFinishesWellUnderTwoMinutesAndSaysWhereThePageIs) {
  ASSERT_EQ(ran_->status, 0) << ran_->out;
  EXPECT_LT(ran_->seconds, 120);
  EXPECT_NE(ran_->out.find((*dir_ / "report.html").string()), std::string::npos) << ran_->out;
  EXPECT_NE(ran_->out.find("[1/"), std::string::npos) << "progress is shown: " << ran_->out;
  EXPECT_TRUE(fs::exists(*dir_ / "report.html"));
  EXPECT_TRUE(fs::exists(*dir_ / "report.json"));
}

// Commands in the advice are pasted as they are: a library path is absolute, never a placeholder
// and never this build tree's (gone with the checkout); this test runs the build tree's binary,
// so the line names the install's path and says it needs the install.
TEST_F(Report, AdviceCommandsNameInstalledLibrariesNotTheBuildTree) {
  const std::string html = slurp(*dir_ / "report.html");
  EXPECT_EQ(html.find("/path/to"), std::string::npos);
  const std::string build_tree = fs::path(THREADMAP_BIN).parent_path().parent_path().string();
  for (size_t at = html.find("LD_PRELOAD="); at != std::string::npos;
       at = html.find("LD_PRELOAD=", at + 1)) {
    const size_t start = at + std::string("LD_PRELOAD=").size();
    const std::string path = html.substr(start, html.find_first_of(" <\n", start) - start);
    EXPECT_EQ(path.front(), '/') << "advice preloads " << path;
    EXPECT_NE(path.rfind(build_tree, 0), 0u) << "advice preloads the build tree's " << path;
    const std::string before = html.substr(html.rfind("<span>", at), at - html.rfind("<span>", at));
    EXPECT_NE(before.find("after cmake --install"), std::string::npos) << before;
  }
}

TEST_F(Report, PageIsWellFormed) {
  const std::string html = slurp(*dir_ / "report.html");
  ASSERT_FALSE(html.empty());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  report_test::HtmlCheck check = report_test::check_html(html);
  for (const auto& e : check.errors) ADD_FAILURE() << e;
  EXPECT_NE(std::find(check.tags.begin(), check.tags.end(), "main"), check.tags.end());
  bool viewport = false;
  for (const auto& a : check.attributes)
    viewport = viewport || (a.tag == "meta" && a.name == "name" && a.value == "viewport");
  EXPECT_TRUE(viewport) << "readable on a phone needs the viewport meta tag";
}

TEST_F(Report, PageEmbedsItsImagesAndReferencesNothingOutside) {
  const std::string html = slurp(*dir_ / "report.html");
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos) << "no CSS fetches";
  EXPECT_EQ(html.find("@import"), std::string::npos);
  report_test::HtmlCheck check = report_test::check_html(html);
  int images = 0;
  for (const auto& a : check.attributes) {
    if (a.name == "src" || a.name == "srcset" || a.name == "poster" || a.name == "data") {
      EXPECT_EQ(a.value.rfind("data:", 0), 0u)
          << a.tag << " " << a.name << "=" << a.value.substr(0, 80);
      if (a.tag == "img") ++images;
    }
    if (a.name == "href") {
      EXPECT_EQ(a.value.rfind("#", 0), 0u) << "href=" << a.value;
    }
    EXPECT_NE(a.tag, "link") << "no external stylesheets";
    EXPECT_NE(a.tag, "script");
    EXPECT_NE(a.tag, "iframe");
  }
  // The heatmap is embedded whenever the latency part is available.
  nlohmann::json j = nlohmann::json::parse(slurp(*dir_ / "report.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  if (j["latency"]["available"].get<bool>()) {
    EXPECT_GE(images, 1);
    EXPECT_NE(html.find("data:image/png;base64,iVBORw0KGgo"), std::string::npos)
        << "a real PNG (its signature, base64) is embedded";
  }
}

TEST_F(Report, JsonHasEveryPartAndSaysWhyOneIsMissing) {
  nlohmann::json j = nlohmann::json::parse(slurp(*dir_ / "report.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["schema"], "threadmap.report/1");
  EXPECT_EQ(j["quick"], true);
  for (const char* key : {"generated_utc", "threadmap_version", "total_seconds", "usable_cpus",
                          "topology", "latency", "advice", "benches"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* part : {"topology", "latency", "advice"}) {
    EXPECT_TRUE(j[part]["available"].is_boolean()) << part;
    if (!j[part]["available"].get<bool>()) {
      EXPECT_TRUE(j[part]["unavailable_reason"].is_string()) << part;
    }
  }
  ASSERT_EQ(j["benches"].size(), 5u);
  for (const auto& b : j["benches"]) {
    EXPECT_EQ(b["schema"], "threadmap.bench/1");
    if (!b["available"].get<bool>()) {
      EXPECT_TRUE(b["unavailable_reason"].is_string()) << b.dump();
    }
  }
  if (j["advice"]["available"].get<bool>()) {
    for (const auto& r : j["advice"]["recommendations"]) {
      // The thread cache is not a placement: it alone names no CPUs.
      const bool cache =
          r["title"].get<std::string>().find("short-lived threads") != std::string::npos;
      EXPECT_EQ(r["cpus"].get<std::string>().empty(), cache) << r.dump();
      EXPECT_FALSE(r["commands"].empty());
    }
  }
}

TEST_F(Report, PageShowsEverySection) {
  const std::string html = slurp(*dir_ / "report.html");
  for (const char* id : {"glance", "topology", "latency", "domains", "numbering", "recommendations",
                         "smt", "thread-cache", "benchmarks", "method"})
    EXPECT_NE(html.find(std::string("<section id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_NE(html.find("threadmap run"), std::string::npos);
  // Every command the report recommends is on the page (up to the first character HTML
  // escapes); a machine where no placement clearly helped (a busy one) recommends none, and the
  // page then says so instead.
  nlohmann::json j = nlohmann::json::parse(slurp(*dir_ / "report.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  int commands = 0;
  for (const auto& rec : j["advice"]["recommendations"])
    for (const auto& c : rec["commands"]) {
      const std::string command = c["command"].get<std::string>();
      const std::string shown = command.substr(0, command.find_first_of("\"'<>&"));
      EXPECT_NE(html.find(shown), std::string::npos) << shown;
      ++commands;
    }
  if (commands == 0) {
    const std::string summary = j["advice"]["placement"]["summary"].get<std::string>();
    ASSERT_FALSE(summary.empty()) << "no command recommended and no reason given";
    EXPECT_NE(html.find(summary.substr(0, 30)), std::string::npos) << summary;
  }
}

TEST(ReportCli, ASavedMatrixOfAnotherMachineIsShownButNotUsedForAdvice) {
  const fs::path dir =
      fs::temp_directory_path() / ("threadmap-report-file-" + std::to_string(getpid()));
  Ran r = run(std::string("report --quick --runs 1 --latency ") + THREADMAP_TEST_DATA +
              "/latency/AMD_Ryzen_9_7950X.csv --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.out;
  nlohmann::json j = nlohmann::json::parse(slurp(dir / "report.json"), nullptr, false);
  const std::string html = slurp(dir / "report.html");
  fs::remove_all(dir);
  ASSERT_FALSE(j.is_discarded());
  ASSERT_TRUE(j["latency"]["available"].get<bool>());
  EXPECT_NE(j["latency"]["how"].get<std::string>().find("loaded from"), std::string::npos);
  if (sysconf(_SC_NPROCESSORS_CONF) < 32) {
    EXPECT_FALSE(j["latency"]["describes_this_machine"].get<bool>());
    EXPECT_TRUE(j["latency"]["hwloc_comparison"].is_null());
    EXPECT_FALSE(j["latency"]["notes"].empty());
  }
  EXPECT_TRUE(report_test::check_html(html).errors.empty());
  EXPECT_NE(html.find("data:image/png;base64,"), std::string::npos);
}

TEST(ReportCli, AnUnstableMatrixIsTheFirstLatencyFindingAndNoStructureIsDrawnFromIt) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs two CPUs to measure a pair";
  const fs::path dir =
      fs::temp_directory_path() / ("threadmap-report-unstable-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path matrix = dir / "measured.json";
  Ran measured = run("latency --quick --json " + matrix.string());
  ASSERT_EQ(measured.status, 0) << measured.out;
  // The same file as a VM whose vCPUs floated would have written it: every pair moved.
  nlohmann::json m = nlohmann::json::parse(slurp(matrix), nullptr, false);
  ASSERT_FALSE(m.is_discarded());
  m["stability"] = {{"state", "unstable"}, {"pairs_moved", 1}, {"pairs_checked", 1}};
  std::ofstream(matrix) << m.dump();
  const fs::path out = dir / "report";
  Ran r = run("report --quick --runs 1 --latency " + matrix.string() + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.out;
  nlohmann::json j = nlohmann::json::parse(slurp(out / "report.json"), nullptr, false);
  const std::string html = slurp(out / "report.html");
  fs::remove_all(dir);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["latency"]["stability"]["state"], "unstable");
  EXPECT_EQ(j["latency"]["stability"]["pairs_moved"], 1);
  EXPECT_TRUE(j["latency"]["stability"]["finding"].is_string());
  EXPECT_NE(html.find("not stable"), std::string::npos);
}

// `report --budget`: the JSON states the budget, every part's share of it (they add up
// to the budget) and the time each part actually took; the page says the same.
TEST_F(Report, JsonStatesTheBudgetEachPartsShareAndItsTimeUsed) {
  nlohmann::json j = nlohmann::json::parse(slurp(*dir_ / "report.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  ASSERT_TRUE(j["budget"].is_object()) << j["budget"].dump();
  EXPECT_EQ(j["budget"]["seconds"].get<double>(), 20.0) << "the --quick default budget";
  double shares = 0;
  std::vector<std::string> parts;
  for (const auto& p : j["budget"]["parts"]) {
    parts.push_back(p["part"].get<std::string>());
    EXPECT_GT(p["share_s"].get<double>(), 0) << p.dump();
    ASSERT_TRUE(p["used_s"].is_number()) << p.dump();
    EXPECT_GE(p["used_s"].get<double>(), 0) << p.dump();
    shares += p["share_s"].get<double>();
  }
  EXPECT_NEAR(shares, 20.0, 1e-6);
  const std::vector<std::string> expected{"topology",       "latency",        "bench contention",
                                          "bench pingpong", "bench smt",      "bench migrate",
                                          "bench spawn",    "recommendations"};
  EXPECT_EQ(parts, expected);
  const std::string html = slurp(*dir_ / "report.html");
  EXPECT_NE(html.find("Time budget: 20 s"), std::string::npos);
}

TEST(ReportCli, ABadBudgetIsAUsageError) {
  for (const char* bad : {"0", "-5", "soon", "10x"}) {
    Ran r = run(std::string("report --quick --budget ") + bad + " --out " +
                (fs::temp_directory_path() / "threadmap-report-bad-budget").string());
    EXPECT_EQ(r.status, 2) << bad << ": " << r.out;
    EXPECT_EQ(r.out.rfind("threadmap: bad --budget", 0), 0u) << r.out;
  }
}

// The "At a glance" list as two parts: what is said about this machine, and the labelled block
// about a loaded matrix ("" when there is none).
struct Glance {
  std::string this_machine, loaded;
};
Glance glance_of(const std::string& html) {
  const size_t a = html.find("<section id=\"glance\">");
  const size_t b = html.find("</section>", a);
  if (a == std::string::npos || b == std::string::npos) return {};
  const std::string g = html.substr(a, b - a);
  const size_t split = g.find("id=\"loaded-matrix\"");
  if (split == std::string::npos) return {g, ""};
  return {g.substr(0, split), g.substr(split)};
}

// a matrix of another machine was summarised among this machine's claims ("CPU 39's
// neighbour 40 is 13.4x farther" on a 2-CPU VM). Its sentences now stand apart, under a label
// that names the machine it came from (a CSV names none: "machine unknown").
TEST(ReportCli, AnotherMachinesMatrixIsNotAttributedToThisMachineAtAGlance) {
  if (sysconf(_SC_NPROCESSORS_CONF) >= 128) GTEST_SKIP() << "the 128-CPU matrix may fit here";
  const fs::path dir =
      fs::temp_directory_path() / ("threadmap-report-other-" + std::to_string(getpid()));
  Ran r = run(std::string("report --quick --runs 1 --budget 4s --latency ") + THREADMAP_TEST_DATA +
              "/latency/AMD_EPYC_7773X.csv --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string html = slurp(dir / "report.html");
  fs::remove_all(dir);
  const Glance g = glance_of(html);
  ASSERT_FALSE(g.loaded.empty()) << g.this_machine;
  EXPECT_EQ(g.this_machine.find("Numbering lies"), std::string::npos) << g.this_machine;
  EXPECT_EQ(g.this_machine.find("Core-to-core latency"), std::string::npos) << g.this_machine;
  EXPECT_NE(g.loaded.find("Loaded matrix: machine unknown, 128 CPUs, from"), std::string::npos)
      << g.loaded;
  EXPECT_NE(g.loaded.find("AMD_EPYC_7773X.csv"), std::string::npos) << g.loaded;
  EXPECT_NE(g.loaded.find("Core-to-core latency"), std::string::npos) << g.loaded;
}

// A JSON matrix names its CPU model and host: one from another host is another machine even
// when its CPU numbers would fit this one.
TEST(ReportCli, AJsonMatrixOfAnotherHostIsLabelledWithItsCpuModel) {
  const fs::path dir =
      fs::temp_directory_path() / ("threadmap-report-host-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path matrix = dir / "other.json";
  std::ofstream(matrix) << R"({"schema": "threadmap.latency/1", "cpus": [0, 1],
    "matrix": [[0, 61.5], [61.5, 0]], "cpu_model": "AMD EPYC 7763 64-Core Processor",
    "machine": {"hostname": "threadmap-test-other-node-17", "kernel": "Linux 6.1"}})";
  Ran r = run("report --quick --runs 1 --budget 4s --latency " + matrix.string() + " --out " +
              (dir / "out").string());
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string html = slurp(dir / "out" / "report.html");
  nlohmann::json j = nlohmann::json::parse(slurp(dir / "out" / "report.json"), nullptr, false);
  fs::remove_all(dir);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_FALSE(j["latency"]["describes_this_machine"].get<bool>());
  EXPECT_EQ(j["latency"]["loaded_machine"],
            "AMD EPYC 7763 64-Core Processor (host threadmap-test-other-node-17), 2 CPUs");
  const Glance g = glance_of(html);
  EXPECT_NE(g.loaded.find("Loaded matrix: AMD EPYC 7763 64-Core Processor"), std::string::npos)
      << g.loaded;
  EXPECT_NE(g.loaded.find("another machine"), std::string::npos) << g.loaded;
  EXPECT_EQ(g.this_machine.find("61.5"), std::string::npos) << g.this_machine;
}

TEST(ReportCli, AnUnwritableDirectoryIsOneErrorLine) {
  Ran r = run("report --quick --out /proc/threadmap-cannot-write-here");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(r.out.rfind("threadmap: ", 0), 0u) << r.out;
}

TEST(ReportCli, AMissingLatencyFileIsOneErrorLine) {
  Ran r = run("report --quick --latency /nonexistent/matrix.csv --out " +
              (fs::temp_directory_path() / "threadmap-report-missing").string());
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("threadmap: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/nonexistent/matrix.csv"), std::string::npos) << r.out;
}

}  // namespace

namespace {

// The checker itself must reject what it is there to catch.
TEST(HtmlCheck, RejectsBrokenPagesAndAcceptsAGoodOne) {
  using report_test::check_html;
  EXPECT_TRUE(check_html("<!DOCTYPE html><html><head><meta charset=\"utf-8\"/><style>a>b{}</style>"
                         "</head><body><p>x &amp; y<br><img src=\"data:,\" alt=\"\"/></p></body>"
                         "</html>")
                  .errors.empty());
  EXPECT_FALSE(check_html("<html><body><div></body></html>").errors.empty());
  EXPECT_FALSE(check_html("<html><body><p>a < b</p></body></html>").errors.empty());
  EXPECT_FALSE(check_html("<html><body><p></div></p></body></html>").errors.empty());
  EXPECT_FALSE(check_html("<html><body><p title=\"x></p></body></html>").errors.empty());
}

}  // namespace

namespace {

// A process bound narrower than its cgroup (taskset here, srun/mpirun on a cluster) measures a
// corner of the machine: report, bench and latency say so first, in words and in the JSON.
bool have_two_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_ISSET(0, &set) && CPU_ISSET(1, &set);
}

TEST(ReportCli, ABindingNarrowerThanTheCgroupIsTheFirstLine) {
  if (!have_two_cpus()) GTEST_SKIP() << "needs CPUs 0 and 1";
  const fs::path dir = fs::temp_directory_path() / ("threadmap-bound-" + std::to_string(getpid()));
  fs::remove_all(dir);
  Ran r;
  {  // run() starts the binary itself: here taskset starts it, bound to CPU 0.
    FILE* p = popen(("taskset -c 0 " + std::string(THREADMAP_BIN) +
                     " report --quick --budget 2 --out " + dir.string() + " 2>&1")
                        .c_str(),
                    "r");
    ASSERT_NE(p, nullptr);
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    r.status = WEXITSTATUS(pclose(p));
  }
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("threadmap report: warning: bound to CPU 0 of the ", 0), 0u) << r.out;
  auto j = nlohmann::json::parse(slurp(dir / "report.json"));
  EXPECT_TRUE(j["binding"]["narrower"].get<bool>()) << j["binding"].dump();
  EXPECT_EQ(j["binding"]["affinity"], "0");
  // Latency cannot run on one CPU: the reason names the binding.
  EXPECT_NE(j["latency"]["unavailable_reason"].get<std::string>().find("bound to CPU 0"),
            std::string::npos)
      << j["latency"].dump();
  EXPECT_NE(slurp(dir / "report.html").find("id=\"binding\""), std::string::npos);
  fs::remove_all(dir);
}

TEST(ReportCli, BenchAndLatencySayTheBindingToo) {
  if (!have_two_cpus()) GTEST_SKIP() << "needs CPUs 0 and 1";
  FILE* p = popen(("taskset -c 1 " + std::string(THREADMAP_BIN) +
                   " bench contention --quick --runs 1 2>/dev/null")
                      .c_str(),
                  "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  pclose(p);
  EXPECT_EQ(out.rfind("warning: bound to CPU 1 of the ", 0), 0u) << out;
  p = popen(("taskset -c 0 " + std::string(THREADMAP_BIN) + " latency --quick 2>&1").c_str(), "r");
  ASSERT_NE(p, nullptr);
  out.clear();
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  EXPECT_NE(WEXITSTATUS(pclose(p)), 0);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find("bound to CPU 0 of the "), std::string::npos) << out;
}

}  // namespace
