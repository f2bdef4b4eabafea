#include "src/apply/run_command.hpp"

#include "src/apply/program_run.hpp"
#include "src/os/files.hpp"
#include "src/os/temp_file.hpp"

namespace threadmap::apply {
namespace {

// The statistics file read, summed and removed. A line is a few hundred bytes: 64 MiB holds
// over 100,000 processes.
Result<CacheStatsSummary> read_cache_stats(const std::string& path) {
  auto text = os::read_file(path, std::size_t{64} << 20, "thread cache statistics");
  os::remove_file(path);
  if (!text) return text.error();
  return summarize_cache_stats(*text);
}

}  // namespace

Result<PreparedRun> prepare_command(const RunCommand& command, const RunHooks& hooks,
                                    bool watch_for_record) {
  const RunRequest& request = command.request;
  std::string memory_note;
  // The plan is read once, by prepare_run: for pinning, and with a watch for checking.
  std::optional<plan::PlanFile> plan;
  std::string placement_note;
  std::string view_note;
  auto launch = prepare_run(request, &memory_note, &plan, &placement_note, &view_note);
  if (!launch) return launch.error();
  // Under a launcher every rank says its own lines: each carries the host/rank tag the
  // preload's lines carry.
  const std::string tag = request.line_tag.empty() ? "" : request.line_tag + ": ";
  if (request.verbose && !memory_note.empty() && hooks.note) hooks.note(tag + memory_note);
  if (request.verbose && !view_note.empty() && hooks.note) hooks.note(tag + view_note);
  // Always said: the program's threads will not be placed as asked.
  if (!placement_note.empty() && hooks.note) hooks.note(tag + placement_note);
  PreparedRun prepared;
  prepared.launch = std::move(*launch);
  // A watch counts kernel threads; under the cache one kernel thread serves many logical
  // ones, so `--watch` reads the cache's counts too (the logical creates, and how many parked
  // threads served them) as `--stats` does.
  prepared.cache_stats = (command.stats || command.watch) && request.thread_cache;
  if (command.watch || watch_for_record) {
    prepared.watch =
        watch_settings(command.interval_ms, 0, plan ? &*plan : nullptr, request.by_name);
    prepared.watch->follow.follow = command.follow && command.watch;
  }
  return prepared;
}

Result<RunReport> run_prepared(const PreparedRun& prepared) {
  os::LaunchSpec launch = prepared.launch;
  std::string stats_path;
  int inherited = -1;
  if (prepared.cache_stats) {
    auto path = os::create_private_temp_file("threadmap-cache-stats");
    if (!path) return path.error();
    stats_path = *path;
    // A process that switched user (a daemon dropping root) must still append its line.
    os::allow_appends_from_switched_users(stats_path);
    // Every process of the run appends its line here (descendants inherit the variable); a
    // value the user set is replaced: it would send the lines elsewhere.
    launch.set_env.emplace_back("TM_CACHE_STATS", stats_path);
    // And a descriptor of it that every process inherits, for a process that can no longer
    // open the file by name (another user without access, another root or mount namespace):
    // it appends its line there, so that it is counted rather than lost.
    auto fd = os::open_inherited_append(stats_path);
    if (!fd) {
      os::remove_file(stats_path);
      return fd.error();
    }
    inherited = fd->fd;
    launch.set_env.emplace_back("TM_CACHE_STATS_FD", std::to_string(fd->fd));
    launch.set_env.emplace_back("TM_CACHE_STATS_INODE", std::to_string(fd->inode));
  }
  auto outcome = run_program(launch, prepared.watch);
  os::close_inherited(inherited);
  if (!outcome) {
    if (!stats_path.empty()) os::remove_file(stats_path);
    Error not_started = outcome.error();
    not_started.fault = Fault::start;
    return not_started;
  }
  RunReport report;
  report.exit_status = outcome->exit_status;
  report.watched = std::move(outcome->watched);
  if (!stats_path.empty()) report.cache_stats = read_cache_stats(stats_path);
  return report;
}

Result<RunReport> run_command(const RunCommand& command, const RunHooks& hooks) {
  auto prepared = prepare_command(command, hooks, /*watch_for_record=*/false);
  if (!prepared) return prepared.error();
  return run_prepared(*prepared);
}

}  // namespace threadmap::apply
