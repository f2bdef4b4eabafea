// threadmap pin PID --cpus EXPR [--threads PATTERN|TID ...] [--json]
#include <cctype>
#include <memory>

#include "src/cli/command.hpp"
#include "src/render/threads_view.hpp"
#include "threadmap/process.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::cli {
namespace {

struct PinOptions {
  pid_t pid = 0;
  std::string cpus;
  std::vector<std::string> threads;
  bool json = false;
};

// A --threads item made only of digits is a tid; anything else is a name pattern.
ThreadSelector make_selector(const std::vector<std::string>& items) {
  ThreadSelector sel;
  for (const std::string& item : items) {
    bool digits = !item.empty();
    for (char c : item) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (digits) {
      sel.tids.push_back(static_cast<pid_t>(std::stol(item)));
    } else {
      sel.name_patterns.push_back(item);
    }
  }
  return sel;
}

int run_pin(const PinOptions& given) {
  // A thread id (not a process's main thread) pins that thread only, in its process.
  PinOptions opt = given;
  auto process = process_of_thread(opt.pid);
  if (!process) return fail(process.error());
  if (*process != opt.pid) {
    if (!opt.threads.empty())
      return usage_error("pin: " + std::to_string(opt.pid) + " is a thread of process " +
                         std::to_string(*process) + "; --threads selects threads of a process");
    opt.threads = {std::to_string(opt.pid)};
    opt.pid = *process;
  }
  auto topo = Topology::load_for_process(opt.pid);
  if (!topo) return fail(topo.error());
  auto cpus = topo->resolve(opt.cpus);
  if (!cpus) return usage_error(cpus.error().with_context("bad --cpus"));
  auto outcome =
      pin_process_threads(opt.pid, *cpus, topo->allowed_cpus(), make_selector(opt.threads));
  if (!outcome) return fail(outcome.error());
  if (opt.json) {
    print(render::pin_outcome_json(opt.pid, *cpus, *outcome).dump(2) + "\n");
  } else {
    print(render::pin_outcome_text(opt.pid, *cpus, *outcome));
  }
  int status = 0;
  for (const auto& [tid, err] : outcome->failed) status = fail(err);
  for (pid_t tid : outcome->missing_tids)
    status = fail("cannot pin tid " + std::to_string(tid) + ": no such thread in process " +
                  std::to_string(opt.pid));
  if (outcome->pinned.empty() && status == 0 && !opt.threads.empty())
    status = fail("no thread of process " + std::to_string(opt.pid) + " matches --threads");
  return status;
}

}  // namespace

void add_pin_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<PinOptions>();
  auto* sub = app.add_subcommand("pin", "Pin the threads of a running process");
  sub->add_option("pid", opt->pid,
                  "Process id (all its threads, or those of --threads), or a thread id (that "
                  "thread only)")
      ->required()
      ->check(process_id_validator());
  sub->add_option("--cpus", opt->cpus,
                  "CPUs: list (0-3,8), mask (0xff), all, or locations (core:0-1, l3:0; "
                  "logical indexes)")
      ->required();
  sub->add_option("--threads", opt->threads,
                  "Only these threads: tids, or name patterns (glob, e.g. 'worker*')");
  sub->add_flag("--json", opt->json, "Print JSON (schema threadmap.pin/1)");
  sub->callback([&selected, opt] { selected = [opt] { return run_pin(*opt); }; });
}

}  // namespace threadmap::cli
