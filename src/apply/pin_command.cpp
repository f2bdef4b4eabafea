#include "src/apply/pin_command.hpp"

#include <cctype>

#include "src/apply/placement.hpp"
#include "src/core/given_cpus.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::apply {
namespace {

// A thread item made only of digits is a tid; anything else is a name pattern.
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

}  // namespace

Result<PinCommand> pin_request(const PinOptions& given) {
  for (const std::string& item : given.threads)
    if (std::string problem = glob_problem(item); !problem.empty())
      return Error::bad_input("threads", "pattern '" + item + "': " + problem);
  PinCommand checked;
  checked.pid = given.pid;
  checked.cpus = given.cpus;
  checked.threads = given.threads;
  return checked;
}

Result<PinReport> pin_command(const PinCommand& given) {
  // A thread id (not a process's main thread) pins that thread only, in its process.
  PinCommand options = given;
  auto process = process_of_thread(options.pid);
  if (!process) return process.error();
  if (*process != options.pid) {
    if (!options.threads.empty())
      return Error::bad_input("threads", std::to_string(options.pid) + " is a thread of process " +
                                             std::to_string(*process) +
                                             "; a thread selection is of a process's threads");
    options.threads = {std::to_string(options.pid)};
    options.pid = *process;
  }
  auto topo = Topology::load_for_process(options.pid);
  if (!topo) return topo.error();
  auto cpus = resolve_given_cpus(*topo, options.cpus, "cpus");
  if (!cpus) return cpus.error();
  auto outcome =
      pin_process_threads(options.pid, *cpus, topo->allowed_cpus(), make_selector(options.threads));
  if (!outcome) return outcome.error();
  PinReport report;
  report.pid = options.pid;
  report.cpus = *cpus;
  report.outcome = std::move(*outcome);
  report.selected = !options.threads.empty();
  return report;
}

}  // namespace threadmap::apply
