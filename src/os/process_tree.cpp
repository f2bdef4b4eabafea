#include "src/os/process_tree.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "src/os/proc_parse.hpp"
#include "src/os/procfs.hpp"

namespace threadmap::os {
namespace {

Error no_process(pid_t pid) {
  return Error::from_errno(ESRCH, "no process with pid " + std::to_string(pid));
}

// Children of every thread: a child's parent is the thread that forked it, not the process.
Result<std::vector<pid_t>> children_from_files(pid_t pid) {
  auto tids = list_task_ids(pid);
  if (!tids) return tids.error();
  std::vector<pid_t> out;
  for (pid_t tid : *tids) {
    ProcFile file(task_path(pid, tid, "children"));
    if (!file.valid()) continue;  // the thread ended meanwhile
    // A pid is at most 11 bytes with its space; 64 KiB holds thousands of children, and a
    // process with more is past any bound a caller keeps anyway.
    std::string text(65536, '\0');
    long n = file.read(text.data(), text.size());
    if (n <= 0) continue;
    text.resize(static_cast<std::size_t>(n));
    for (pid_t child : parse_children_list(text)) out.push_back(child);
  }
  return out;
}

// Every process on the machine whose stat names `pid` as its parent.
Result<std::vector<pid_t>> children_from_stat_scan(pid_t pid) {
  if (task_count(pid) < 0) return no_process(pid);
  DIR* dir = opendir("/proc");
  if (!dir) return Error::from_errno(errno, "cannot list /proc");
  std::vector<pid_t> out;
  while (dirent* entry = readdir(dir)) {
    char* end = nullptr;
    long other = std::strtol(entry->d_name, &end, 10);
    if (!end || *end != '\0' || other <= 0) continue;
    ProcFile file(process_path(static_cast<pid_t>(other), "stat"));
    if (!file.valid()) continue;
    char buf[2048];
    if (file.read(buf, sizeof buf) <= 0) continue;
    auto st = parse_task_stat(buf);
    if (st && st->ppid == pid) out.push_back(static_cast<pid_t>(other));
  }
  closedir(dir);
  return out;
}

}  // namespace

bool have_children_files() {
  static const bool present = ::access(own_thread_path("children").c_str(), R_OK) == 0;
  return present;
}

Result<std::vector<pid_t>> list_child_processes(pid_t pid, ChildLookup lookup) {
  if (pid <= 0) return no_process(pid);
  if (lookup == ChildLookup::children_files && !have_children_files())
    return Error::from_errno(ENOTSUP, "this kernel has no /proc/PID/task/TID/children files");
  const bool files = lookup == ChildLookup::children_files ||
                     (lookup == ChildLookup::automatic && have_children_files());
  auto children = files ? children_from_files(pid) : children_from_stat_scan(pid);
  if (!children) return children;
  std::sort(children->begin(), children->end());
  children->erase(std::unique(children->begin(), children->end()), children->end());
  return children;
}

Result<ProcessIdentity> read_process_identity(pid_t pid) {
  if (pid <= 0) return no_process(pid);
  ProcFile file(process_path(pid, "stat"));
  if (!file.valid()) return no_process(pid);
  char buf[2048];
  if (file.read(buf, sizeof buf) <= 0) return no_process(pid);
  auto st = parse_task_stat(buf);
  if (!st) return Error::from_errno(EIO, "cannot parse " + process_path(pid, "stat"));
  return ProcessIdentity{pid, st->ppid, st->comm, st->state};
}

Result<std::string> read_executable_path(pid_t pid) {
  const std::string link = process_path(pid, "exe");
  std::string target(4096, '\0');
  ssize_t n = ::readlink(link.c_str(), target.data(), target.size());
  if (n < 0) {
    const int err = errno;
    return Error::from_errno(err, "cannot read " + link + ": " + std::strerror(err));
  }
  target.resize(static_cast<std::size_t>(n));
  return target;
}

}  // namespace threadmap::os
