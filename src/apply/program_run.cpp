#include "src/apply/program_run.hpp"

#include "src/plan/plan_file.hpp"

namespace threadmap::apply {

Result<ProgramOutcome> run_program(const os::LaunchSpec& launch,
                                   const std::optional<monitor::WatchSettings>& watch) {
  auto child = os::spawn(launch);
  if (!child) return child.error();
  os::SignalForwarding forwarding(*child);
  ProgramOutcome outcome;
  if (watch) {
    auto watched = monitor::watch_process(*child, true, *watch);
    if (watched && watched->child_status) {
      outcome.exit_status = *watched->child_status;
    } else {
      // Watching failed part-way: the program still runs to its end and is reaped.
      auto status = os::wait_for_exit(*child);
      outcome.exit_status = status ? *status : 1;
    }
    outcome.watched = std::move(watched);
    return outcome;
  }
  auto status = os::wait_for_exit(*child);
  if (!status) return status.error();
  outcome.exit_status = *status;
  return outcome;
}

monitor::WatchSettings watch_settings(int interval_ms, double duration_s,
                                      const plan::PlanFile* plan, bool by_name) {
  monitor::WatchSettings s;
  s.interval_ms = interval_ms;
  s.duration_s = duration_s;
  s.by_name = by_name;
  if (plan) s.plan = plan->assignments;
  return s;
}

Result<monitor::WatchSettings> watch_settings(int interval_ms, double duration_s,
                                              const std::string& plan_path, bool by_name) {
  if (plan_path.empty())
    return watch_settings(interval_ms, duration_s, static_cast<const plan::PlanFile*>(nullptr),
                          by_name);
  auto plan = plan::read_plan_file(plan_path);
  if (!plan) return plan.error();
  return watch_settings(interval_ms, duration_s, &*plan, by_name);
}

int combined_exit_status(int program_status, bool our_part_ok) {
  if (program_status != 0) return program_status;
  return our_part_ok ? 0 : 1;
}

}  // namespace threadmap::apply
