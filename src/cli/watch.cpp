// threadmap watch [PID | -- CMD ARGS...] [--interval MS] [--duration S] [--json F]
//                 [--timeline F.png|F.svg] [--plan F [--by-name]]
// Samples the threads of a process until it exits (or --duration, or Ctrl-C), shows a live
// table on a terminal, then prints the summary and writes the JSON and the timeline picture.
#include <signal.h>
#include <time.h>

#include <atomic>
#include <cerrno>
#include <memory>
#include <optional>

#include "src/apply/launcher.hpp"
#include "src/apply/plan_file.hpp"
#include "src/cli/command.hpp"
#include "src/monitor/perf_counters.hpp"
#include "src/monitor/thread_sampler.hpp"
#include "src/monitor/watch_history.hpp"
#include "src/render/watch_timeline.hpp"
#include "src/render/watch_view.hpp"

namespace threadmap::cli {

int watch_child_process(pid_t child, int interval_ms, const std::string& plan_path, bool by_name);

namespace {

std::atomic<bool> g_interrupted{false};

void on_interrupt(int) { g_interrupted.store(true); }

struct WatchOptions {
  std::vector<std::string> target;  // one PID, or CMD ARGS...
  int interval_ms = 100;
  double duration_s = 0;
  std::string json_path;
  std::string timeline_path;
  std::string plan_path;
  bool by_name = false;
  bool summary_to_stderr = false;  // run --watch: keep the program's stdout clean
  bool live = true;
};

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

void sleep_until(timespec& next, int interval_ms) {
  next.tv_nsec += static_cast<long>(interval_ms % 1000) * 1000000L;
  next.tv_sec += interval_ms / 1000 + next.tv_nsec / 1000000000L;
  next.tv_nsec %= 1000000000L;
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr) == EINTR &&
         !g_interrupted.load()) {
  }
}

// Samples the sampler's process until it goes away, `child` exits, the duration passes or Ctrl-C. Returns the
// child's exit status when there is a child.
struct Watched {
  std::optional<int> child_status;
};

Result<Watched> sample_loop(std::optional<pid_t> child, const WatchOptions& opt,
                            monitor::ThreadSampler& sampler, monitor::WatchHistory& history) {
  Watched out;
  bool live = opt.live && stdout_is_tty() && !opt.summary_to_stderr;
  timespec next{};
  clock_gettime(CLOCK_MONOTONIC, &next);
  timespec start = next;
  // A program we just started is still in the dynamic loader: the first sample comes one
  // interval later, when it runs its own code (and the pin library has placed its main thread).
  if (child) sleep_until(next, opt.interval_ms);
  for (;;) {
    if (child) {
      auto exited = apply::poll_exit(*child);
      if (!exited) return exited.error();
      if (*exited) {
        out.child_status = **exited;
        break;
      }
    }
    auto sample = sampler.sample();
    if (!sample) {
      if (sample.error().code.value() == ESRCH) break;
      return sample.error();
    }
    history.add(*sample);
    if (live) print("\x1b[H\x1b[2J" + render::watch_live_table(history, 40));
    if (g_interrupted.load()) break;
    if (opt.duration_s > 0) {
      timespec now{};
      clock_gettime(CLOCK_MONOTONIC, &now);
      double elapsed = static_cast<double>(now.tv_sec - start.tv_sec) +
                       static_cast<double>(now.tv_nsec - start.tv_nsec) / 1e9;
      if (elapsed >= opt.duration_s) break;
    }
    sleep_until(next, opt.interval_ms);
  }
  if (child && !out.child_status) {
    auto status = apply::wait_for_exit(*child);
    if (!status) return status.error();
    out.child_status = *status;
  }
  return out;
}

int report(const WatchOptions& opt, const monitor::ThreadSampler& sampler,
           const monitor::WatchHistory& history) {
  if (history.samples() == 0) return fail(std::string("watch: the process exited before the first sample"));
  std::vector<std::optional<CpuSet>> planned;
  if (!opt.plan_path.empty()) {
    auto plan = apply::read_plan_file(opt.plan_path);
    if (!plan) return fail(plan.error());
    std::vector<monitor::PlannedThread> entries;
    for (const auto& a : plan->assignments) entries.push_back({a.thread, a.cpus});
    planned = monitor::match_plan(history, entries, opt.by_name);
  }
  std::string note;
  monitor::hardware_counters_available(&note);
  auto summary = monitor::summarize(history, planned, sampler.source(),
                                    sampler.hardware_counters(), note);
  std::string text = render::watch_summary_text(summary);
  if (opt.summary_to_stderr) {
    std::fputs(text.c_str(), stderr);
  } else {
    print(text);
  }
  if (!opt.json_path.empty()) {
    auto st = write_file(opt.json_path, render::watch_json(summary, history).dump(2) + "\n");
    if (!st) return fail(st.error());
  }
  if (!opt.timeline_path.empty()) {
    auto format = render::image_format_for(opt.timeline_path);
    if (!format) return fail(format.error());
    auto image = render::watch_timeline_image(history, *format);
    if (!image) return fail(image.error());
    auto st = write_file(opt.timeline_path, *image);
    if (!st) return fail(st.error());
  }
  return 0;
}

int run_watch(WatchOptions opt) {
  if (opt.target.empty()) return fail(std::string("watch: give a PID or -- CMD ARGS..."));
  if (!opt.timeline_path.empty()) {
    if (auto format = render::image_format_for(opt.timeline_path); !format)
      return fail(format.error());
  }
  if (!opt.plan_path.empty()) {  // a bad plan is reported before anything starts
    if (auto plan = apply::read_plan_file(opt.plan_path); !plan) return fail(plan.error());
  }
  if (opt.target.size() == 1 && all_digits(opt.target[0])) {
    pid_t pid = static_cast<pid_t>(std::stol(opt.target[0]));
    monitor::ThreadSampler sampler(pid);
    monitor::WatchHistory history(pid);
    g_interrupted.store(false);
    signal(SIGINT, on_interrupt);
    signal(SIGTERM, on_interrupt);
    auto watched = sample_loop(std::nullopt, opt, sampler, history);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (!watched) return fail(watched.error());
    if (history.samples() == 0)
      return fail("watch: no process " + std::to_string(pid));
    return report(opt, sampler, history);
  }
  apply::LaunchSpec spec;
  spec.argv = opt.target;
  auto child = apply::spawn(spec);
  if (!child) {
    fail(child.error());
    return child.error().code.value() == ENOENT ? 127 : 126;
  }
  apply::forward_signals_to(*child);
  monitor::ThreadSampler sampler(*child);
  monitor::WatchHistory history(*child);
  auto watched = sample_loop(*child, opt, sampler, history);
  apply::stop_forwarding();
  if (!watched) return fail(watched.error());
  int rc = report(opt, sampler, history);
  // The program's exit status wins; a failed report only shows when the program succeeded.
  return watched->child_status.value_or(0) != 0 ? *watched->child_status : rc;
}

}  // namespace

int watch_child_process(pid_t child, int interval_ms, const std::string& plan_path, bool by_name) {
  WatchOptions opt;
  opt.interval_ms = interval_ms;
  opt.plan_path = plan_path;
  opt.by_name = by_name;
  opt.summary_to_stderr = true;
  monitor::ThreadSampler sampler(child);
  monitor::WatchHistory history(child);
  auto watched = sample_loop(child, opt, sampler, history);
  if (!watched) return fail(watched.error());
  report(opt, sampler, history);
  return watched->child_status.value_or(1);
}

void add_watch_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<WatchOptions>();
  auto* sub = app.add_subcommand(
      "watch", "Watch where a process's threads run: CPU over time, migrations, switches");
  sub->add_option("target", opt->target, "PID, or -- CMD ARGS... to start and watch");
  sub->add_option("--interval", opt->interval_ms, "Sampling interval in ms (default 100)")
      ->check(CLI::Range(10, 60000));
  sub->add_option("--duration", opt->duration_s,
                  "Stop after this many seconds (default: until the process exits or Ctrl-C)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--json", opt->json_path, "Write the summary as JSON (threadmap.watch/1)");
  sub->add_option("--timeline", opt->timeline_path,
                  "Write the timeline picture (threads by time, colored by CPU): F.png or F.svg");
  sub->add_option("--plan", opt->plan_path,
                  "Plan JSON: report each thread's share of samples on its planned CPUs");
  sub->add_flag("--by-name", opt->by_name, "With --plan: match plan threads by thread name");
  sub->add_flag("--no-live", [opt](std::int64_t) { opt->live = false; },
                "No live table, even on a terminal");
  sub->callback([&selected, opt] { selected = [opt] { return run_watch(*opt); }; });
}

}  // namespace threadmap::cli
