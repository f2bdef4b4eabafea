#include "src/apply/watch_command.hpp"

#include <set>

#include "src/apply/program_run.hpp"
#include "src/apply/run_options.hpp"
#include "src/apply/static_program.hpp"
#include "src/monitor/process_id.hpp"
#include "src/os/files.hpp"
#include "src/os/kernel_affinity.hpp"
#include "src/os/proc_parse.hpp"
#include "src/os/process.hpp"
#include "src/os/procfs.hpp"

namespace threadmap::apply {
namespace {

// The thread cache's statistics file of a process, when it runs under the cache with
// TM_CACHE_STATS=FILE (the environment it started with, /proc/PID/environ); "" otherwise or
// when that cannot be read (another user's process).
std::string cache_stats_file_of(pid_t pid) {
  auto environ = os::read_proc_text(os::process_path(pid, "environ"));
  if (!environ) return "";
  auto file = os::parse_environ_value(*environ, "TM_CACHE_STATS");
  return file && !file->empty() && file->front() == '/' ? *file : "";
}

// The records of the watched processes in that file: the kernel counts threads, the cache
// counts the logical creates its parked threads served. A process still alive at the end has a
// live record, counted as of its last update.
Result<CacheStatsSummary> watched_cache_stats(const std::string& file,
                                              const monitor::WatchHistory& history) {
  // A line is a few hundred bytes, a live record 2 KiB: 64 MiB holds tens of thousands.
  auto text = os::read_file(file, std::size_t{64} << 20, "thread cache statistics");
  if (!text) return text.error();
  std::set<long> pids{history.pid()}, running;
  for (const monitor::ThreadTrack& t : history.threads()) pids.insert(t.pid);
  for (const monitor::ProcessTrack& p : history.processes()) pids.insert(p.pid);
  for (long pid : pids)
    if (os::process_exists(static_cast<pid_t>(pid))) running.insert(pid);
  return summarize_cache_stats_of(*text, pids, running);
}

}  // namespace

Result<WatchCommand> watch_request(const WatchOptions& o) {
  if (o.pid.empty() && o.command.empty())
    return Error::bad_input("", "give a process id to watch, or a command to start after --");
  if (!o.pid.empty() && !o.command.empty())
    return Error::bad_input("pid", "a process id and a command to start cannot be combined");
  if (o.pid.size() > 1)
    return Error::bad_input("pid", "one process id at a time (a command to start goes after --)");
  if (auto st = check_by_name(o.by_name, o.plan_path); !st) return st.error();
  WatchCommand command;
  if (!o.pid.empty()) {
    auto pid = monitor::parse_process_id(o.pid.front());
    if (!pid)
      return Error::bad_input("pid", pid.error().message + " (a command to start goes after --)");
    command.pid = *pid;
  }
  command.command = o.command;
  command.interval_ms = o.interval_ms.value_or(100);
  command.duration_s = o.duration_s.value_or(0);
  command.plan_path = o.plan_path;
  command.by_name = o.by_name;
  command.follow = o.follow;
  return command;
}

Result<WatchReport> watch_command(
    const WatchCommand& command, const std::function<void(const monitor::WatchHistory&)>& on_sample,
    const std::function<void(const std::string&)>& note) {
  // A bad plan is reported before anything is watched or started.
  auto settings =
      watch_settings(command.interval_ms, command.duration_s, command.plan_path, command.by_name);
  if (!settings) return settings.error().about("plan_path");
  settings->follow.follow = command.follow;
  settings->on_sample = on_sample;
  WatchReport report;
  if (command.pid > 0) {
    // Read before the watch: the process may be gone at its end.
    const std::string stats_file = cache_stats_file_of(command.pid);
    os::InterruptFlag interrupt;  // Ctrl-C ends the watch, not threadmap: the summary still prints
    settings->stop_requested = &os::InterruptFlag::interrupted;
    report.watched = monitor::watch_process(command.pid, false, *settings);
    if (!stats_file.empty() && *report.watched) {
      report.cache_stats_file = stats_file;
      report.cache_stats = watched_cache_stats(stats_file, (*report.watched)->history);
    }
    return report;
  }
  os::LaunchSpec launch;
  launch.argv = command.command;
  // Said before the start: a program no preload can load into is watched all the same, but a
  // later `run` of it would be placed as a whole process.
  if (std::string warning = watch_static_warning(launch.argv[0]); !warning.empty() && note)
    note(warning);
  auto outcome = run_program(launch, *settings);
  if (!outcome) {
    Error not_started = outcome.error();
    not_started.fault = Fault::start;
    return not_started;
  }
  report.program_status = outcome->exit_status;
  report.watched = std::move(outcome->watched);
  return report;
}

}  // namespace threadmap::apply
