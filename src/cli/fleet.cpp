// threadmap fleet DIR [--json F|-] [--html F|-] [--strict]
// Compares the machine reports of a fleet (report --out DIR/%h; fleet::load_fleet) and shows
// the groups and their outliers; this file parses and prints.
#include <memory>

#include "src/cli/command.hpp"
#include "src/cli/outputs.hpp"
#include "src/fleet/fleet_compare.hpp"
#include "src/render/fleet_view.hpp"

namespace threadmap::cli {
namespace {

struct FleetOptions {
  std::string dir;
  std::string json_path;
  std::string html_path;
  bool strict = false;
  FlagTable flags;  ///< member -> flag, filled as the flags are declared
};

// Exit status with --strict when some host differs: distinct from 1 (the command failed).
constexpr int kFindingsStatus = 3;

int run_fleet(const FleetOptions& opt) {
  Outputs out;
  out.declare(opt.flags, &opt.json_path);
  out.declare(opt.flags, &opt.html_path);
  if (auto st = out.check(); !st) return fail(st.error());
  auto fleet_report = fleet::load_fleet(opt.dir);
  if (!fleet_report) return fail(fleet_report.error().with_context("fleet"));
  const bool text_to_stdout = opt.json_path != "-" && opt.html_path != "-";
  if (out.wanted(&opt.json_path))
    out.set(&opt.json_path, render::fleet_json(*fleet_report).dump(2) + "\n");
  if (out.wanted(&opt.html_path))
    out.set(&opt.html_path,
            render::fleet_html(*fleet_report, render::html::page_meta_here(command_line_text())));
  if (auto st = out.commit(); !st) return fail(st.error().with_context("fleet"));
  if (text_to_stdout) print(render::fleet_text(*fleet_report));
  return opt.strict && !fleet_report->outliers.empty() ? kFindingsStatus : 0;
}

}  // namespace

void add_fleet_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<FleetOptions>();
  auto* sub = app.add_subcommand(
      "fleet",
      "Compare machine reports of many hosts (report --out DIR/%h): groups of identical "
      "hardware and the hosts that differ");
  TM_OPTION(opt->flags, sub, "dir", *opt, dir,
            "Directory of DIR/<host>/report.json or DIR/*.json reports")
      ->required();
  TM_OPTION(opt->flags, sub, "--json", *opt, json_path,
            "Write JSON (schema threadmap.fleet/1); - = stdout");
  TM_OPTION(opt->flags, sub, "--html", *opt, html_path,
            "Write a self-contained HTML page; - = stdout");
  TM_FLAG(opt->flags, sub, "--strict", *opt, strict,
          "Exit 3 when some host differs from its group (0 otherwise)");
  sub->callback([&selected, opt] { selected = [opt] { return run_fleet(*opt); }; });
}

}  // namespace threadmap::cli
