#include "src/apply/run_command.hpp"

#include "src/apply/program_run.hpp"
#include "src/os/files.hpp"
#include "src/os/temp_file.hpp"

namespace threadmap::apply {
namespace {

RunStop stop(RunStopKind kind, Error error, RunField field = RunField::none) {
  return RunStop{kind, field, std::move(error)};
}

// The statistics file read, summed and removed. A line is a few hundred bytes: 64 MiB holds
// over 100,000 processes.
Result<CacheStatsSummary> read_cache_stats(const std::string& path) {
  auto text = os::read_file(path, std::size_t{64} << 20, "thread cache statistics");
  os::remove_file(path);
  if (!text) return text.error();
  return summarize_cache_stats(*text);
}

}  // namespace

std::optional<RunStop> refuse_unused_options(const RunCommand& command) {
  // Options that would be silently ignored are refused: the user meant something by them.
  if (command.interval_given && !command.watch)
    return stop(RunStopKind::usage, Error::invalid("--interval applies to --watch only"));
  // A rank record watches too, but only the rank's own process: --follow needs --watch.
  if (command.follow && !command.watch)
    return stop(RunStopKind::usage, Error::invalid("--follow applies to --watch only"));
  if (command.stats && !command.request.thread_cache)
    return stop(RunStopKind::usage, Error::invalid("--stats applies to --thread-cache only"));
  return std::nullopt;
}

PreparedRun prepare_command(const RunCommand& command, bool watch_for_record) {
  PreparedRun prepared;
  const RunRequest& request = command.request;
  // Checked here, not with the other options: `run --ranks` fills the CPU list from the share.
  if (command.policy_given && request.cpus.empty()) {
    prepared.stopped =
        stop(RunStopKind::usage, Error::invalid("--policy applies to --cpus or --ranks only"));
    return prepared;
  }
  RunField field = RunField::none;
  std::string memory_note;
  // The plan is read once, by prepare_run: for pinning, and with a watch for checking.
  std::optional<plan::PlanFile> plan;
  std::string placement_note;
  auto launch = prepare_run(request, &field, &memory_note, &plan, &placement_note);
  if (!launch) {
    // A value or combination of options that cannot work is a usage error; a plan file that
    // cannot be read or used, or a library not found, is a failure.
    bool usage = field != RunField::plan && launch.error().code == std::errc::invalid_argument;
    prepared.stopped =
        stop(usage ? RunStopKind::usage : RunStopKind::failure, launch.error(), field);
    return prepared;
  }
  if (request.verbose && !memory_note.empty() && command.note) command.note(memory_note);
  // Always said: the program's threads will not be placed as asked.
  if (!placement_note.empty() && command.note) command.note(placement_note);
  prepared.launch = std::move(*launch);
  prepared.cache_stats = command.stats && request.thread_cache;
  if (command.watch || watch_for_record) {
    prepared.watch =
        watch_settings(command.interval_ms, 0, plan ? &*plan : nullptr, request.by_name);
    prepared.watch->follow.follow = command.follow && command.watch;
  }
  return prepared;
}

RunReport run_prepared(const PreparedRun& prepared) {
  RunReport report;
  if (prepared.stopped) {
    report.stopped = prepared.stopped;
    return report;
  }
  os::LaunchSpec launch = prepared.launch;
  std::string stats_path;
  if (prepared.cache_stats) {
    auto path = os::create_private_temp_file("threadmap-cache-stats");
    if (!path) {
      report.stopped = stop(RunStopKind::failure, path.error());
      return report;
    }
    stats_path = *path;
    // Every process of the run appends its line here (descendants inherit the variable); a
    // value the user set is replaced: it would send the lines elsewhere.
    launch.set_env.emplace_back("TM_CACHE_STATS", stats_path);
  }
  auto outcome = run_program(launch, prepared.watch);
  if (!outcome) {
    if (!stats_path.empty()) os::remove_file(stats_path);
    report.stopped = stop(RunStopKind::start, outcome.error());
    return report;
  }
  report.exit_status = outcome->exit_status;
  report.watched = std::move(outcome->watched);
  if (!stats_path.empty()) report.cache_stats = read_cache_stats(stats_path);
  return report;
}

RunReport run_command(const RunCommand& command) {
  if (auto refused = refuse_unused_options(command)) {
    RunReport report;
    report.stopped = std::move(refused);
    return report;
  }
  return run_prepared(prepare_command(command, /*watch_for_record=*/false));
}

}  // namespace threadmap::apply
