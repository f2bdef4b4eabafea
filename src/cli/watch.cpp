// threadmap watch [PID | -- CMD ARGS...] [--follow] [--interval MS] [--duration S] [--json F]
//                 [--timeline F.png|F.svg] [--plan F [--by-name]] [--no-live]
// Parses into apply::WatchOptions; the library checks them (apply::watch_request) and watches
// the process or runs and watches the program (apply::watch_command); this file shows the live
// table and prints the summary.
#include <memory>

#include "src/apply/program_run.hpp"
#include "src/apply/watch_command.hpp"
#include "src/cli/command.hpp"
#include "src/cli/watch_output.hpp"
#include "src/os/files.hpp"
#include "src/render/cache_stats_text.hpp"
#include "src/render/watch_view.hpp"

namespace threadmap::cli {
namespace {

struct WatchCliOptions {
  std::vector<std::string> target;  // one PID, or CMD ARGS... (split at "--" into `given`)
  apply::WatchOptions given;
  WatchOutputs outputs;
  bool live = true;
  FlagTable flags;  ///< member -> flag, filled as the flags are declared
};

int run_watch(const WatchCliOptions& given) {
  WatchCliOptions opt = given;
  // Words before "--" are a PID; words after it, the command to start.
  const int after = arguments_after_separator();
  const std::size_t before =
      after < 0 ? opt.target.size() : opt.target.size() - static_cast<std::size_t>(after);
  opt.given.pid.assign(opt.target.begin(), opt.target.begin() + static_cast<long>(before));
  opt.given.command.assign(opt.target.begin() + static_cast<long>(before), opt.target.end());
  auto command = apply::watch_request(opt.given);
  if (!command) return fail(command.error(), opt.flags);
  if (auto st = check_watch_outputs(opt.outputs); !st) return fail(st.error());
  std::function<void(const monitor::WatchHistory&)> live;
  if (opt.live && stdout_is_tty())
    live = [](const monitor::WatchHistory& h) {
      print("\x1b[H\x1b[2J" + render::watch_live_table(h, 40));
    };
  auto report = apply::watch_command(*command, live, [](const std::string& line) {
    os::write_stderr("threadmap: watch: " + line + "\n");
  });
  if (!report) return fail(report.error(), opt.flags);
  // A program we started writes to stdout: our summary goes to stderr, as under run --watch,
  // so its output stays its own. Watching a running PID, stdout is ours.
  const bool started = !opt.given.command.empty();
  const apply::CacheStatsSummary* cache =
      report->cache_stats && *report->cache_stats ? &**report->cache_stats : nullptr;
  bool ours_ok = print_watch_outcome(*report->watched, opt.outputs, started, cache);
  if (report->cache_stats) {
    if (*report->cache_stats) {
      const std::string stats =
          "threadmap: thread cache: the counts of " + report->cache_stats_file +
          " (TM_CACHE_STATS of the watched process) for the processes watched:\n" +
          render::cache_stats_text(**report->cache_stats);
      if (started)
        os::write_stderr(stats);
      else
        print(stats);
    } else {
      ours_ok = fail(report->cache_stats->error()) == 0 && ours_ok;
    }
  }
  if (!report->program_status) return ours_ok ? 0 : 1;
  return apply::combined_exit_status(*report->program_status, ours_ok);
}

}  // namespace

void add_watch_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<WatchCliOptions>();
  apply::WatchOptions& given = opt->given;
  auto* sub = app.add_subcommand(
      "watch", "Watch where a process's threads run: CPU over time, migrations, switches");
  TM_OPTION(opt->flags, sub, "target", *opt, target, "PID, or -- CMD ARGS... to start and watch");
  // One positional, split at "--" into the two members.
  opt->flags.add_named("pid", "pid");
  opt->flags.add_named("command", "command");
  TM_FLAG(opt->flags, sub, "--follow", given, follow,
          "Follow the processes it starts too (forked children and what they exec), each "
          "thread labelled with its process");
  TM_OPTION(opt->flags, sub, "--interval", given, interval_ms,
            "Sampling interval in ms (default 100)")
      ->check(CLI::Range(10, 60000));
  TM_OPTION(opt->flags, sub, "--duration", given, duration_s,
            "Stop after this many seconds (default: until the process exits or Ctrl-C)")
      ->check(positive_seconds_validator());
  TM_OPTION(opt->flags, sub, "--json", opt->outputs, json_path,
            "Write the summary as JSON (threadmap.watch/1)");
  TM_OPTION(opt->flags, sub, "--timeline", opt->outputs, timeline_path,
            "Write the timeline picture (threads by time, colored by CPU): F.png or F.svg");
  TM_OPTION(opt->flags, sub, "--plan", given, plan_path,
            "Plan JSON: report each thread's share of samples on its planned CPUs");
  TM_FLAG(opt->flags, sub, "--by-name", given, by_name,
          "With --plan: match plan threads by thread name");
  sub->add_flag(
      "--no-live", [opt](std::int64_t) { opt->live = false; }, "No live table, even on a terminal");
  sub->callback([&selected, opt] { selected = [opt] { return run_watch(*opt); }; });
}

}  // namespace threadmap::cli
