// Reading /proc: the tasks of a process, their small text files, and the calling thread's own.
// Thread lists change under our feet, so listing is bounded re-reading, not one snapshot.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "threadmap/result.hpp"

namespace threadmap::os {

/// "/proc/PID/task/TID/FILE"; "/proc/PID/task/TID/" when file is empty.
std::string task_path(pid_t pid, pid_t tid, const std::string& file);
/// "/proc/PID/FILE".
std::string process_path(pid_t pid, const std::string& file);
/// "/proc/thread-self/FILE": the calling thread's own file.
std::string own_thread_path(const std::string& file);

/// Thread ids of `pid`, ascending. ESRCH ("no process with pid N") when it does not exist.
Result<std::vector<pid_t>> list_task_ids(pid_t pid);
/// Threads of `pid` now, from the link count of /proc/PID/task (2 + threads): one stat(2),
/// where listing the directory costs a lookup per thread. -1 when unknown (process gone).
long task_count(pid_t pid);

/// Reads a small procfs file whole (up to 64 KiB). ESRCH when it cannot be opened (the task is
/// gone), EIO when reading fails.
Result<std::string> read_proc_text(const std::string& path);

/// An open procfs file read again and again from offset 0 (pread regenerates it): how a
/// sampler keeps thousands of threads cheap. Move-only; closes its descriptor.
class ProcFile {
 public:
  ProcFile() = default;
  /// Opens `path` read-only; valid() is false when it could not be opened.
  explicit ProcFile(const std::string& path);
  ~ProcFile();
  ProcFile(ProcFile&& other) noexcept;
  ProcFile& operator=(ProcFile&& other) noexcept;
  ProcFile(const ProcFile&) = delete;
  ProcFile& operator=(const ProcFile&) = delete;

  bool valid() const { return fd_ >= 0; }
  /// Reads the whole file into buf (NUL-terminated, at most size - 1 bytes). Returns the bytes
  /// read, or -1 (the task is gone). EINTR is retried.
  long read(char* buf, std::size_t size) const;

 private:
  int fd_ = -1;
};

/// Outcome of walk_tasks_until_stable().
struct TaskWalk {
  int passes = 0;             ///< times the list was read
  bool stable = false;        ///< the last pass found no thread not already visited
  bool process_gone = false;  ///< the process exited during the walk
};
/// Visits every thread of `pid` once, re-reading /proc/PID/task until a pass finds no thread it
/// has not visited (threads created meanwhile are not missed), at most `max_passes` times.
/// ESRCH when the process does not exist at the start.
Result<TaskWalk> walk_tasks_until_stable(pid_t pid, int max_passes,
                                         const std::function<void(pid_t)>& visit);

/// The unit of /proc's utime and stime (sysconf(_SC_CLK_TCK); 100 when it cannot be read).
long clock_ticks_per_second();

/// Raises the soft limit on open files to the hard limit: a watcher holds a few descriptors for
/// each of thousands of threads.
void raise_open_file_limit();

}  // namespace threadmap::os
