// threadmap report [--out DIR] [--quick] [--runs N] [--latency FILE]
// Characterizes this machine into DIR/report.html (one self-contained page) and
// DIR/report.json, with progress on stderr.
#include <cstdio>
#include <memory>

#include "src/cli/command.hpp"
#include "src/cli/outputs.hpp"
#include "src/fleet/host_record.hpp"
#include "src/os/files.hpp"
#include "src/os/host.hpp"
#include "src/render/report_html.hpp"
#include "src/render/report_json.hpp"
#include "src/report/report_data.hpp"
#include "src/tune/duration.hpp"
#include "threadmap/version.hpp"

namespace threadmap::cli {
namespace {

struct ReportCliOptions {
  std::string out_dir = "threadmap-report";
  bool quick = false;
  int runs = 0;
  std::string latency_file;
  std::string budget;  ///< --budget as typed ("60", "90s", "2m"); "" = the default
  FlagTable flags;     ///< member -> flag, filled as the flags are declared
};

void show_latency_progress(const latency::Progress& p) {
  std::fprintf(stderr, "\r\x1b[K      latency pair %zu/%zu (CPUs %d-%d), ETA %.0f s", p.pairs_done,
               p.pairs_total, p.cpu_a, p.cpu_b, p.eta_s);
  if (p.pairs_done == p.pairs_total) std::fprintf(stderr, "\r\x1b[K");
  std::fflush(stderr);
}

int write_report(const ReportCliOptions& opt, double budget_s, bool& created) {
  report::ReportOptions ro;
  ro.budget_s = budget_s;
  ro.command_line = command_line_text();
  ro.quick = opt.quick;
  ro.runs = opt.runs;
  ro.latency_file = opt.latency_file;
  ro.version = std::string("threadmap ") + THREADMAP_VERSION_STRING;
  ro.spawn_tools = experiments::locate_spawn_tools();
  ro.progress = [](const std::string& line) {
    std::fprintf(stderr, "threadmap report: %s\n", line.c_str());
    std::fflush(stderr);
  };
  ro.warning = [](const std::string& line) {
    std::fprintf(stderr, "threadmap report: warning: %s\n", line.c_str());
    std::fflush(stderr);
  };
  if (stderr_is_tty()) ro.latency_progress = show_latency_progress;
  auto report = report::collect_report(ro);
  if (!report) return fail(report.error(), opt.flags);

  // The three files land together or not at all.
  render::ReportImages images = render::draw_report_images(*report);
  const std::string png_name = images.heatmap_png.empty() ? "" : "latency-heatmap.png";
  const std::string png_path = opt.out_dir + "/latency-heatmap.png";
  const std::string html_path = opt.out_dir + "/report.html";
  const std::string json_path = opt.out_dir + "/report.json";
  Outputs out;
  out.declare("--out", &html_path);
  out.declare("--out", &json_path);
  if (!png_name.empty()) out.declare("--out", &png_path);
  out.set(&html_path, render::report_html(*report, images));
  out.set(&json_path, render::report_json(*report, png_name).dump(1) + "\n");
  out.set(&png_path, images.heatmap_png);
  // The directory is made now, with the files, not before minutes of measuring: a report
  // stopped by Ctrl-C or a kill leaves nothing behind.
  if (Status made = os::create_directory(opt.out_dir, &created); !made)
    return fail(made.error().with_context("cannot write the report"));
  if (Status st = out.commit(); !st) return fail(st.error());
  std::fprintf(stderr, "threadmap report: done in %.0f s\n", report->total_seconds);
  const bool bound = report->binding && !report->binding->finding.empty();
  print((bound ? "warning: " + report->binding->finding + "\n" : "") +
        (report->machine_state ? "machine: " + report->machine_state->summary + "\n" : "") +
        "report: " + html_path + " (open it in a browser; self-contained)\n" +
        "data:   " + json_path + "\n");
  return 0;
}

// Before the work: an existing directory we can write in, or one we can make. It is made for
// good only when the files are written.
Status check_out_dir(const std::string& dir) {
  if (os::is_directory(dir)) return os::check_writable(dir + "/report.html");
  // Made and removed again: only trying tells (root may write everywhere access() says, and
  // still not create a directory in /proc).
  bool created = false;
  if (Status made = os::create_directory(dir, &created); !made) return made.error();
  if (created) os::remove_empty_directory(dir);
  return {};
}

// A report that fails, or is stopped, leaves no directory it created behind.
int run_report(const ReportCliOptions& given) {
  ReportCliOptions opt = given;
  // The report's two value parsers live beside it, not in report (the duration in tune, the
  // host pattern in fleet), so these two values are checked here, with the rule every command
  // follows: a value given that cannot work is the command line's fault.
  double budget_s = 0;
  if (!opt.budget.empty()) {
    auto parsed = tune::parse_duration(opt.budget);
    if (!parsed) return fail(parsed.error().as_bad_input("budget"), opt.flags);
    budget_s = *parsed;
  }
  // "%h" is this host's name, so one command line serves a whole fleet (srun ... --out DIR/%h).
  auto expanded = fleet::expand_host_pattern(opt.out_dir, os::host_name());
  if (!expanded) return fail(expanded.error().as_bad_input("out_dir"), opt.flags);
  opt.out_dir = *expanded;
  if (Status st = check_out_dir(opt.out_dir); !st)
    return fail(st.error().with_context("cannot write the report"));
  bool created = false;
  int status = write_report(opt, budget_s, created);
  if (status != 0 && created) os::remove_empty_directory(opt.out_dir);
  return status;
}

}  // namespace

void add_report_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<ReportCliOptions>();
  auto* sub = app.add_subcommand(
      "report", "Characterize this machine into one self-contained HTML page plus JSON");
  TM_OPTION(opt->flags, sub, "--out", *opt, out_dir,
            "Directory for report.html, report.json and latency-heatmap.png "
            "(default ./threadmap-report); %h is this host's name (for fleets: --out DIR/%h)");
  TM_FLAG(opt->flags, sub, "--quick", *opt, quick,
          "Quick: one latency pair per topology class, short benchmarks");
  TM_OPTION(opt->flags, sub, "--runs", *opt, runs,
            "Runs per benchmark variant (default 5, 3 with --quick)")
      ->check(CLI::Range(1, 100));
  TM_OPTION(opt->flags, sub, "--budget", *opt, budget,
            "Time the report may take in all, shared between its parts (topology, "
            "latency, each bench); e.g. 60, 90s, 2m (default 60 s, 20 s with --quick)");
  TM_OPTION(opt->flags, sub, "--latency", *opt, latency_file,
            "Use this saved latency matrix (threadmap latency --json/--csv) instead of "
            "measuring");
  sub->callback([&selected, opt] { selected = [opt] { return run_report(*opt); }; });
}

}  // namespace threadmap::cli
