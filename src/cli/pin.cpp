// threadmap pin PID --cpus EXPR [--threads PATTERN|TID ...] [--json]
// Parses, has the library check (apply::pin_request) and pin (apply::pin_command), prints what was
// pinned and one line per thread that was not.
#include <memory>

#include "src/apply/pin_command.hpp"
#include "src/cli/command.hpp"
#include "src/cli/manual_sections.hpp"
#include "src/render/threads_view.hpp"

namespace threadmap::cli {
namespace {

struct PinCliOptions {
  apply::PinOptions given;
  bool json = false;
  FlagTable flags;  ///< member -> flag, filled as the flags are declared
};

int run_pin(const PinCliOptions& opt) {
  auto command = apply::pin_request(opt.given);
  if (!command) return fail(command.error(), opt.flags);
  auto pinned = apply::pin_command(*command);
  if (!pinned) return fail(pinned.error(), opt.flags);
  const pid_t pid = pinned->pid;
  const PinOutcome& outcome = pinned->outcome;
  if (opt.json) {
    print(render::pin_outcome_json(pid, pinned->cpus, outcome).dump(2) + "\n");
  } else {
    print(render::pin_outcome_text(pid, pinned->cpus, outcome));
  }
  int status = 0;
  for (const std::string& line : render::pin_failure_lines(pid, pinned->cpus, outcome))
    status = fail(line);
  for (pid_t tid : outcome.missing_tids)
    status = fail("cannot pin tid " + std::to_string(tid) + ": no such thread in process " +
                  std::to_string(pid));
  if (outcome.pinned.empty() && status == 0 && pinned->selected)
    status = fail("no thread of process " + std::to_string(pid) + " matches --threads");
  return status;
}

}  // namespace

void add_pin_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<PinCliOptions>();
  apply::PinOptions& given = opt->given;
  auto* sub = app.add_subcommand("pin", "Pin the threads of a running process");
  TM_OPTION(opt->flags, sub, "pid", given, pid,
            "Process id (all its threads, or those of --threads), or a thread id (that "
            "thread only)")
      ->required()
      ->check(process_id_validator());
  TM_OPTION(opt->flags, sub, "--cpus", given, cpus, "CPUs: " + cpu_expression_brief())
      ->required()
      ->check(non_empty_cpus_validator());
  TM_OPTION(opt->flags, sub, "--threads", given, threads,
            "Only these threads: tids, or name patterns (glob, e.g. 'worker*')");
  TM_FLAG(opt->flags, sub, "--json", *opt, json, "Print JSON (schema threadmap.pin/1)");
  sub->callback([&selected, opt] { selected = [opt] { return run_pin(*opt); }; });
}

}  // namespace threadmap::cli
