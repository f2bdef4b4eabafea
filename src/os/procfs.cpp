#include "src/os/procfs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>

namespace threadmap::os {
namespace {

Error no_process(pid_t pid) {
  return Error::from_errno(ESRCH, "no process with pid " + std::to_string(pid));
}

}  // namespace

std::string task_path(pid_t pid, pid_t tid, const std::string& file) {
  return "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/" + file;
}

std::string process_path(pid_t pid, const std::string& file) {
  return "/proc/" + std::to_string(pid) + "/" + file;
}

std::string own_thread_path(const std::string& file) { return "/proc/thread-self/" + file; }

Result<std::vector<pid_t>> list_task_ids(pid_t pid) {
  if (pid <= 0) return no_process(pid);
  DIR* dir = opendir(process_path(pid, "task").c_str());
  if (!dir) return no_process(pid);
  std::vector<pid_t> tids;
  while (dirent* entry = readdir(dir)) {
    char* end = nullptr;
    long tid = std::strtol(entry->d_name, &end, 10);
    if (end && *end == '\0' && tid > 0) tids.push_back(static_cast<pid_t>(tid));
  }
  closedir(dir);
  std::sort(tids.begin(), tids.end());
  if (tids.empty()) return no_process(pid);
  return tids;
}

long task_count(pid_t pid) {
  struct stat st {};
  if (::stat(process_path(pid, "task").c_str(), &st) != 0 || st.st_nlink < 2) return -1;
  return static_cast<long>(st.st_nlink) - 2;
}

Result<std::string> read_proc_text(const std::string& path) {
  ProcFile file(path);
  if (!file.valid()) return Error::from_errno(ESRCH, "cannot open " + path);
  std::string text(65536, '\0');
  long n = file.read(text.data(), text.size());
  if (n < 0) return Error::from_errno(EIO, "cannot read " + path);
  text.resize(static_cast<std::size_t>(n));
  return text;
}

ProcFile::ProcFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}

ProcFile::~ProcFile() {
  if (fd_ >= 0) ::close(fd_);
}

ProcFile::ProcFile(ProcFile&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

ProcFile& ProcFile::operator=(ProcFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

long ProcFile::read(char* buf, std::size_t size) const {
  if (fd_ < 0 || size == 0) return -1;
  ssize_t n;
  do {
    n = ::pread(fd_, buf, size - 1, 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return -1;
  buf[n] = '\0';
  return static_cast<long>(n);
}

Result<TaskWalk> walk_tasks_until_stable(pid_t pid, int max_passes,
                                         const std::function<void(pid_t)>& visit) {
  if (!list_task_ids(pid)) return no_process(pid);
  TaskWalk walk;
  std::set<pid_t> seen;
  while (walk.passes < max_passes && !walk.stable) {
    ++walk.passes;
    auto tids = list_task_ids(pid);
    if (!tids) {
      walk.process_gone = true;
      break;
    }
    walk.stable = true;
    for (pid_t tid : *tids) {
      if (!seen.insert(tid).second) continue;
      walk.stable = false;  // a thread not seen before: read the list once more afterwards
      visit(tid);
    }
  }
  return walk;
}

long clock_ticks_per_second() {
  static const long hz = [] {
    long v = sysconf(_SC_CLK_TCK);
    return v > 0 ? v : 100L;
  }();
  return hz;
}

void raise_open_file_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

}  // namespace threadmap::os
