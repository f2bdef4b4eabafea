#include "src/render/threads_view.hpp"

#include <fmt/format.h>

#include "src/render/safe_text.hpp"
#include "src/render/text_table.hpp"

namespace threadmap::render {

std::string threads_table(const std::vector<ThreadInfo>& threads) {
  TextTable table(
      {"tid>", "name", "state", "allowed CPUs", "last CPU>", "voluntary cs>", "involuntary cs>"});
  for (const ThreadInfo& t : threads)
    table.add_row({std::to_string(t.tid), terminal_safe(t.name), std::string(1, t.state),
                   t.allowed.to_list(), std::to_string(t.last_cpu),
                   std::to_string(t.voluntary_switches), std::to_string(t.involuntary_switches)});
  return table.str() +
         "(context switches: totals since each thread started, from /proc/PID/task/TID/status)\n";
}

nlohmann::json threads_json(pid_t pid, const std::string& process_name,
                            const std::vector<ThreadInfo>& threads) {
  nlohmann::json arr = nlohmann::json::array();
  for (const ThreadInfo& t : threads)
    arr.push_back({{"tid", t.tid},
                   {"name", valid_utf8(t.name)},
                   {"state", std::string(1, t.state)},
                   {"allowed_cpus", t.allowed.to_list()},
                   {"last_cpu", t.last_cpu},
                   {"voluntary_switches", t.voluntary_switches},
                   {"involuntary_switches", t.involuntary_switches},
                   {"user_ticks", t.user_ticks},
                   {"system_ticks", t.system_ticks}});
  return {
      {"schema", "threadmap.threads/1"}, {"pid", pid}, {"name", process_name}, {"threads", arr}};
}

std::string pin_outcome_text(pid_t pid, const CpuSet& cpus, const PinOutcome& outcome) {
  std::string out;
  for (pid_t tid : outcome.pinned) out += fmt::format("pinned tid {} to {}\n", tid, cpus.to_list());
  for (pid_t tid : outcome.vanished)
    out += fmt::format("tid {} exited before it was pinned\n", tid);
  out += fmt::format(
      "process {}: {} thread(s) pinned to {}, {} vanished, {} failed ({} list pass(es))\n", pid,
      outcome.pinned.size(), cpus.to_list(), outcome.vanished.size(),
      outcome.failed.size() + outcome.missing_tids.size(), outcome.list_passes);
  return out;
}

nlohmann::json pin_outcome_json(pid_t pid, const CpuSet& cpus, const PinOutcome& outcome) {
  nlohmann::json failed = nlohmann::json::array();
  for (const auto& [tid, err] : outcome.failed)
    failed.push_back({{"tid", tid}, {"error", err.message}});
  for (pid_t tid : outcome.missing_tids)
    failed.push_back({{"tid", tid}, {"error", "no such thread in the process"}});
  return {{"schema", "threadmap.pin/1"},
          {"pid", pid},
          {"cpus", cpus.to_list()},
          {"pinned", outcome.pinned},
          {"vanished", outcome.vanished},
          {"failed", failed},
          {"list_passes", outcome.list_passes},
          {"ok", outcome.ok()}};
}

}  // namespace threadmap::render
