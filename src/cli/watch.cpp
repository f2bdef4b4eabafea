// threadmap watch [PID | -- CMD ARGS...] [--follow] [--interval MS] [--duration S] [--json F]
//                 [--timeline F.png|F.svg] [--plan F [--by-name]] [--no-live]
// Parses and checks every option before anything is watched or started; the library samples
// (monitor::watch_process) or runs and watches a program (apply::run_program); this file shows
// the live table and prints the summary.
#include <memory>

#include "src/apply/program_run.hpp"
#include "src/apply/static_program.hpp"
#include "src/cli/command.hpp"
#include "src/cli/watch_output.hpp"
#include "src/os/files.hpp"
#include "src/os/process.hpp"
#include "src/render/watch_view.hpp"

namespace threadmap::cli {
namespace {

struct WatchOptions {
  std::vector<std::string> target;  // one PID, or CMD ARGS...
  int interval_ms = 100;
  double duration_s = 0;
  WatchOutputs outputs;
  std::string plan_path;
  bool by_name = false;
  bool follow = false;
  bool live = true;
};

// A PID is a positive integer that fits a pid_t.
Result<pid_t> parse_pid(const std::string& text) {
  bool digits = !text.empty() && text.size() <= 10 &&
                text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoll(text) <= 0 || std::stoll(text) > 0x7fffffff)
    return Error::invalid("bad PID '" + text +
                          "': expected a positive process id (a command to "
                          "start goes after --)");
  return static_cast<pid_t>(std::stoll(text));
}

int run_watch(const WatchOptions& opt) {
  if (opt.target.empty()) return usage_error(std::string("watch: give a PID or -- CMD ARGS..."));
  if (opt.by_name && opt.plan_path.empty())
    return usage_error(std::string("watch: --by-name needs --plan"));
  if (auto st = check_watch_outputs(opt.outputs); !st) return reject(st.error());
  auto settings =
      apply::watch_settings(opt.interval_ms, opt.duration_s, opt.plan_path, opt.by_name);
  if (!settings) return fail(settings.error());  // a bad plan is reported before anything starts
  settings->follow.follow = opt.follow;
  if (opt.live && stdout_is_tty())
    settings->on_sample = [](const monitor::WatchHistory& h) {
      print("\x1b[H\x1b[2J" + render::watch_live_table(h, 40));
    };

  // Words before "--" are a PID; words after it, the command to start.
  const int after = arguments_after_separator();
  const std::size_t before =
      after < 0 ? opt.target.size() : opt.target.size() - static_cast<std::size_t>(after);
  if (before > 0 && after > 0)
    return usage_error(std::string("watch: give a PID or -- CMD ARGS..., not both"));
  if (before > 1) return usage_error(std::string("watch: give one PID (a command goes after --)"));
  if (before == 1) {
    auto pid = parse_pid(opt.target[0]);
    if (!pid) return usage_error(pid.error().with_context("watch"));
    os::InterruptFlag interrupt;  // Ctrl-C ends the watch, not threadmap: the summary still prints
    settings->stop_requested = &os::InterruptFlag::interrupted;
    auto watched = monitor::watch_process(*pid, false, *settings);
    return print_watch_outcome(watched, opt.outputs, false) ? 0 : 1;
  }
  os::LaunchSpec launch;
  launch.argv = opt.target;
  if (std::string warning = apply::watch_static_warning(launch.argv[0]); !warning.empty())
    os::write_stderr("threadmap: watch: " + warning + "\n");
  auto outcome = apply::run_program(launch, *settings);
  if (!outcome) {
    fail(outcome.error());
    return os::start_failure_status(outcome.error());
  }
  bool ours_ok = print_watch_outcome(*outcome->watched, opt.outputs, false);
  return apply::combined_exit_status(outcome->exit_status, ours_ok);
}

}  // namespace

void add_watch_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<WatchOptions>();
  auto* sub = app.add_subcommand(
      "watch", "Watch where a process's threads run: CPU over time, migrations, switches");
  sub->add_option("target", opt->target, "PID, or -- CMD ARGS... to start and watch");
  sub->add_flag("--follow", opt->follow,
                "Follow the processes it starts too (forked children and what they exec), each "
                "thread labelled with its process");
  sub->add_option("--interval", opt->interval_ms, "Sampling interval in ms (default 100)")
      ->check(CLI::Range(10, 60000));
  sub->add_option("--duration", opt->duration_s,
                  "Stop after this many seconds (default: until the process exits or Ctrl-C)")
      ->check(positive_seconds_validator());
  sub->add_option("--json", opt->outputs.json_path,
                  "Write the summary as JSON (threadmap.watch/1)");
  sub->add_option("--timeline", opt->outputs.timeline_path,
                  "Write the timeline picture (threads by time, colored by CPU): F.png or F.svg");
  sub->add_option("--plan", opt->plan_path,
                  "Plan JSON: report each thread's share of samples on its planned CPUs");
  sub->add_flag("--by-name", opt->by_name, "With --plan: match plan threads by thread name");
  sub->add_flag(
      "--no-live", [opt](std::int64_t) { opt->live = false; }, "No live table, even on a terminal");
  sub->callback([&selected, opt] { selected = [opt] { return run_watch(*opt); }; });
}

}  // namespace threadmap::cli
