// The family of a process, from /proc: its children, and who a process is (parent, command
// name, executable). What `watch --follow` walks at every sample to find forked children and
// the programs they exec.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "threadmap/result.hpp"

namespace threadmap::os {

/// Where the children of a process are found.
enum class ChildLookup {
  automatic,       ///< children files when the kernel has them, else the stat scan
  children_files,  ///< /proc/PID/task/TID/children of every thread (CONFIG_PROC_CHILDREN)
  stat_scan,       ///< every /proc/N/stat whose parent (field 4) is the process
};

/// Whether this kernel writes /proc/PID/task/TID/children (probed once, on ourselves).
bool have_children_files();

/// The processes whose parent is `pid` (a child forked by any of its threads), ascending. The
/// children files cost one read per thread of `pid`; the stat scan one read per process on the
/// machine. ESRCH ("no process with pid N") when `pid` does not exist; ENOTSUP when
/// children_files is asked for and the kernel has none.
Result<std::vector<pid_t>> list_child_processes(pid_t pid,
                                                ChildLookup lookup = ChildLookup::automatic);

/// Who a process is now.
struct ProcessIdentity {
  pid_t pid = 0;
  pid_t ppid = 0;
  std::string comm;  ///< its main thread's command name (changes at exec)
  char state = '?';  ///< R, S, D, ...; Z: ended, not yet reaped by its parent
};
/// Reads /proc/PID/stat. ESRCH when the process is gone (or was never there).
Result<ProcessIdentity> read_process_identity(pid_t pid);

/// The program a process runs: the target of /proc/PID/exe. EACCES when it is not ours to read
/// (another user's process), ESRCH when it is gone, ENOENT for a kernel thread.
Result<std::string> read_executable_path(pid_t pid);

}  // namespace threadmap::os
