#include "src/apply/run_command.hpp"

#include "src/apply/program_run.hpp"

namespace threadmap::apply {

Result<PreparedRun> prepare_command(const RunCommand& command, const RunHooks& hooks,
                                    bool watch_for_record) {
  const RunRequest& request = command.request;
  std::string memory_note;
  // The plan is read once, by prepare_run: for pinning, and with a watch for checking.
  std::optional<PlanFile> plan;
  auto launch = prepare_run(request, &memory_note, &plan);
  if (!launch) return launch.error();
  if (request.verbose && !memory_note.empty() && hooks.note) hooks.note(memory_note);
  PreparedRun prepared;
  prepared.launch = std::move(*launch);
  if (command.watch || watch_for_record) {
    prepared.watch =
        watch_settings(command.interval_ms, 0, plan ? &*plan : nullptr, request.by_name);
    prepared.watch->follow.follow = command.follow && command.watch;
  }
  return prepared;
}

Result<RunReport> run_prepared(const PreparedRun& prepared) {
  auto outcome = run_program(prepared.launch, prepared.watch);
  if (!outcome) {
    Error not_started = outcome.error();
    not_started.fault = Fault::start;
    return not_started;
  }
  RunReport report;
  report.exit_status = outcome->exit_status;
  report.watched = std::move(outcome->watched);
  return report;
}

Result<RunReport> run_command(const RunCommand& command, const RunHooks& hooks) {
  auto prepared = prepare_command(command, hooks, /*watch_for_record=*/false);
  if (!prepared) return prepared.error();
  return run_prepared(*prepared);
}

}  // namespace threadmap::apply
