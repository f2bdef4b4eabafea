#include "src/render/threads_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "src/render/safe_text.hpp"
#include "src/render/text_table.hpp"

namespace threadmap::render {

std::string threads_table(const std::vector<ThreadInfo>& threads, double sample_s) {
  TextTable table({"tid>", "name", "state", "CPU%>", "CPU time>", "allowed CPUs", "last CPU>",
                   "voluntary cs>", "involuntary cs>"});
  for (const ThreadInfo& t : threads)
    table.add_row({std::to_string(t.tid), terminal_safe(t.name), std::string(1, t.state),
                   t.cpu_percent < 0 ? std::string("-") : fmt::format("{:.1f}", t.cpu_percent),
                   fmt::format("{:.2f} s", t.cpu_seconds), t.allowed.to_list(),
                   std::to_string(t.last_cpu), std::to_string(t.voluntary_switches),
                   std::to_string(t.involuntary_switches)});
  std::string evidence =
      sample_s > 0 ? fmt::format("CPU%: measured here over {:g} s, 100 = one CPU", sample_s)
                   : std::string("CPU%: not sampled (--sample 0)");
  return table.str() + "(" + evidence +
         "; CPU time and context switches: totals since each thread started, from the "
         "thread's /proc/PID/task/TID)\n";
}

nlohmann::json threads_json(pid_t pid, const std::string& process_name,
                            const std::vector<ThreadInfo>& threads, double sample_s) {
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
                   {"system_ticks", t.system_ticks},
                   {"cpu_seconds", t.cpu_seconds},
                   {"cpu_percent",
                    t.cpu_percent < 0 ? nlohmann::json(nullptr) : nlohmann::json(t.cpu_percent)}});
  return {{"schema", "threadmap.threads/1"},
          {"pid", pid},
          {"name", process_name},
          {"cpu_sample_s", sample_s},
          {"threads", arr}};
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

std::vector<std::string> pin_failure_lines(pid_t pid, const CpuSet& cpus,
                                           const PinOutcome& outcome) {
  // Grouped by errno, in the order each cause was first seen.
  std::vector<std::pair<int, std::vector<std::size_t>>> causes;
  for (std::size_t i = 0; i < outcome.failed.size(); ++i) {
    const int code = outcome.failed[i].second.code.value();
    auto same = std::find_if(causes.begin(), causes.end(),
                             [code](const auto& c) { return c.first == code; });
    if (same == causes.end())
      causes.push_back({code, {i}});
    else
      same->second.push_back(i);
  }
  std::vector<std::string> lines;
  for (const auto& [code, which] : causes) {
    if (which.size() == 1) {
      lines.push_back(outcome.failed[which.front()].second.message);
      continue;
    }
    std::string tids;
    for (std::size_t k = 0; k < which.size() && k < 4; ++k)
      tids += (k ? ", " : "") + std::to_string(outcome.failed[which[k]].first);
    if (which.size() > 4) tids += fmt::format(", ... {} more", which.size() - 4);
    lines.push_back(fmt::format("cannot pin {} threads of process {} (tids {}) to {}: {}",
                                which.size(), pid, tids, cpus.to_list(), std::strerror(code)));
  }
  return lines;
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
