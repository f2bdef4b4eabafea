// threadmap job DIR [--json F|-] [--html F|-] [--strict]
// Merges the rank records `run --ranks ... --record DIR` left (cluster::load_job) and shows
// them; this file parses and prints.
#include <memory>

#include "src/cli/command.hpp"
#include "src/cli/outputs.hpp"
#include "src/cluster/job_merge.hpp"
#include "src/render/job_view.hpp"

namespace threadmap::cli {
namespace {

struct JobOptions {
  std::string dir;
  std::string json_path;
  std::string html_path;
  bool strict = false;
  FlagTable flags;  ///< member -> flag, filled as the flags are declared
};

// Exit status with --strict when the job has findings: distinct from 1 (the command failed) so
// a batch script can tell "the job ran badly" from "threadmap could not read the records".
constexpr int kFindingsStatus = 3;

int run_job(const JobOptions& opt) {
  Outputs out;
  out.declare(opt.flags, &opt.json_path);
  out.declare(opt.flags, &opt.html_path);
  if (auto st = out.check(); !st) return fail(st.error());
  auto job = cluster::load_job(opt.dir);
  if (!job) return fail(job.error().with_context("job"));
  const bool text_to_stdout = opt.json_path != "-" && opt.html_path != "-";
  if (out.wanted(&opt.json_path)) out.set(&opt.json_path, render::job_json(*job).dump(2) + "\n");
  if (out.wanted(&opt.html_path))
    out.set(&opt.html_path,
            render::job_html(*job, render::html::page_meta_here(command_line_text())));
  if (auto st = out.commit(); !st) return fail(st.error().with_context("job"));
  if (text_to_stdout) print(render::job_text(*job));
  return opt.strict && !job->findings.empty() ? kFindingsStatus : 0;
}

}  // namespace

void add_job_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<JobOptions>();
  auto* sub = app.add_subcommand(
      "job",
      "Merge the rank records of a job (run --ranks ... --record DIR): where each rank's "
      "threads ran, per host, and what went wrong");
  TM_OPTION(opt->flags, sub, "dir", *opt, dir, "Directory of <host>.<rank>.json records")
      ->required();
  TM_OPTION(opt->flags, sub, "--json", *opt, json_path,
            "Write JSON (schema threadmap.job/1); - = stdout");
  TM_OPTION(opt->flags, sub, "--html", *opt, html_path,
            "Write a self-contained HTML page; - = stdout");
  TM_FLAG(opt->flags, sub, "--strict", *opt, strict,
          "Exit 3 when there are findings (0 otherwise)");
  sub->callback([&selected, opt] { selected = [opt] { return run_job(*opt); }; });
}

}  // namespace threadmap::cli
