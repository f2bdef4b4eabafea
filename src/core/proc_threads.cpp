// Threads of a running process from /proc/PID/task, and pinning them. Thread lists change
// under our feet: we re-read until stable, and a thread that vanishes is reported, not fatal.
#include <dirent.h>
#include <fnmatch.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "threadmap/affinity.hpp"
#include "threadmap/process.hpp"

namespace threadmap {
namespace {

std::string task_dir(pid_t pid) { return "/proc/" + std::to_string(pid) + "/task"; }

Error no_process(pid_t pid) {
  return Error::from_errno(ESRCH, "no process with pid " + std::to_string(pid));
}

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

// /proc/PID/task/TID/stat: "tid (comm) state ppid ...". comm may hold spaces and parentheses,
// so fields are counted from the LAST ')'.
bool parse_stat(const std::string& text, ThreadInfo& info) {
  size_t close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return false;
  std::istringstream fields(text.substr(close + 2));
  std::vector<std::string> f;
  std::string tok;
  while (fields >> tok) f.push_back(tok);
  // f[0] is field 3 (state); field N is f[N-3].
  if (f.size() < 37) return false;
  info.state = f[0].empty() ? '?' : f[0][0];
  info.user_ticks = std::strtoull(f[14 - 3].c_str(), nullptr, 10);
  info.system_ticks = std::strtoull(f[15 - 3].c_str(), nullptr, 10);
  info.last_cpu = std::atoi(f[39 - 3].c_str());
  return true;
}

void parse_status(const std::string& text, ThreadInfo& info) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    if (key == "Name") {
      info.name = value;
    } else if (key == "Cpus_allowed_list") {
      if (auto set = CpuSet::parse_list(value)) info.allowed = *set;
    } else if (key == "voluntary_ctxt_switches") {
      info.voluntary_switches = std::strtoull(value.c_str(), nullptr, 10);
    } else if (key == "nonvoluntary_ctxt_switches") {
      info.involuntary_switches = std::strtoull(value.c_str(), nullptr, 10);
    }
  }
}

bool selected(const ThreadInfo& t, const ThreadSelector& sel) {
  if (sel.all()) return true;
  if (std::find(sel.tids.begin(), sel.tids.end(), t.tid) != sel.tids.end()) return true;
  for (const std::string& pattern : sel.name_patterns)
    if (fnmatch(pattern.c_str(), t.name.c_str(), 0) == 0) return true;
  return false;
}

}  // namespace

Result<std::vector<pid_t>> list_tids(pid_t pid) {
  if (pid <= 0) return no_process(pid);
  DIR* dir = opendir(task_dir(pid).c_str());
  if (!dir) return no_process(pid);
  std::vector<pid_t> tids;
  while (struct dirent* entry = readdir(dir)) {
    char* end = nullptr;
    long tid = std::strtol(entry->d_name, &end, 10);
    if (end && *end == '\0' && tid > 0) tids.push_back(static_cast<pid_t>(tid));
  }
  closedir(dir);
  std::sort(tids.begin(), tids.end());
  if (tids.empty()) return no_process(pid);
  return tids;
}

Result<ThreadInfo> read_thread(pid_t pid, pid_t tid) {
  std::string base = task_dir(pid) + "/" + std::to_string(tid);
  ThreadInfo info;
  info.tid = tid;
  std::string stat_text, status_text;
  if (!read_file(base + "/stat", stat_text) || !read_file(base + "/status", status_text) ||
      !parse_stat(stat_text, info))
    return Error::from_errno(ESRCH, "thread " + std::to_string(tid) + " of process " +
                                        std::to_string(pid) + " is gone");
  parse_status(status_text, info);
  return info;
}

Result<std::vector<ThreadInfo>> list_threads(pid_t pid) {
  auto tids = list_tids(pid);
  if (!tids) return tids.error();
  std::vector<ThreadInfo> out;
  for (pid_t tid : *tids)
    if (auto info = read_thread(pid, tid)) out.push_back(std::move(*info));
  if (out.empty()) return no_process(pid);
  return out;
}

Result<std::string> process_name(pid_t pid) {
  std::string text;
  if (pid <= 0 || !read_file("/proc/" + std::to_string(pid) + "/comm", text))
    return no_process(pid);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

Result<PinOutcome> pin_process_threads(pid_t pid, const CpuSet& cpus, const CpuSet& allowed,
                                       const ThreadSelector& selector) {
  if (cpus.empty()) return Error::invalid("cannot pin the threads of " + std::to_string(pid) +
                                          ": the CPU set is empty");
  CpuSet outside = cpus - allowed;
  if (!outside.empty())
    return Error::invalid("cannot pin the threads of " + std::to_string(pid) + " to " +
                          cpus.to_list() + ": CPU " + outside.to_list() +
                          " is not in the allowed set " + allowed.to_list());
  if (!list_tids(pid)) return no_process(pid);

  PinOutcome outcome;
  std::set<pid_t> seen;
  constexpr int kMaxPasses = 10;
  bool stable = false;
  for (int pass = 0; pass < kMaxPasses && !stable; ++pass) {
    outcome.list_passes = pass + 1;
    auto tids = list_tids(pid);
    if (!tids) break;  // the process exited meanwhile: what we pinned stays reported
    stable = true;
    for (pid_t tid : *tids) {
      if (!seen.insert(tid).second) continue;
      stable = false;  // a thread we had not seen: read the list once more afterwards
      auto info = read_thread(pid, tid);
      if (!info) {
        outcome.vanished.push_back(tid);
        continue;
      }
      if (!selected(*info, selector)) continue;
      auto st = pin_tid(tid, cpus, allowed);
      if (st) {
        outcome.pinned.push_back(tid);
      } else if (st.error().code.value() == ESRCH) {
        outcome.vanished.push_back(tid);
      } else {
        outcome.failed.emplace_back(tid, st.error());
      }
    }
  }
  if (!stable)
    outcome.failed.emplace_back(
        0, Error::from_errno(EAGAIN, "the thread list of process " + std::to_string(pid) +
                                         " kept changing for " + std::to_string(kMaxPasses) +
                                         " passes; threads created since may be unpinned"));
  for (pid_t tid : selector.tids)
    if (!seen.count(tid)) outcome.missing_tids.push_back(tid);
  return outcome;
}

}  // namespace threadmap
