// Launching a program under the preload libraries: finding them, building its environment,
// starting it, forwarding signals to it and passing its exit status through.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "threadmap/result.hpp"

namespace threadmap::apply {

/// Finds lib/libthreadmap-NAME.so ("pin", "cache"): next to the running binary (<bin>/../lib,
/// which is both the build tree and an install prefix), then the configured install libdir.
/// ENOENT naming every place looked at when it is in none.
Result<std::string> find_preload_library(const std::string& name);

/// What to start and how.
struct LaunchSpec {
  std::vector<std::string> argv;                              ///< program and arguments
  std::vector<std::pair<std::string, std::string>> set_env;   ///< variables set in the child
  std::vector<std::string> preload;  ///< libraries put in front of LD_PRELOAD, in this order
};

/// The LD_PRELOAD value for the child: `preload` first (so the pin wrapper runs on top of the
/// thread cache), then what was already there — except sanitizer runtimes already present,
/// which must stay first.
std::string compose_ld_preload(const std::vector<std::string>& preload, const char* existing);

/// Starts the program (PATH lookup as execvp). When it cannot be started: ENOENT, EACCES...
/// with "cannot run 'CMD': why". Nothing is left running on failure.
Result<pid_t> spawn(const LaunchSpec& spec);

/// Forwards SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH and SIGCONT sent to
/// this process to `child`. SIGINT/SIGQUIT typed at the terminal already reach the child (same
/// process group) and are not sent twice. Call stop_forwarding() once the child is reaped.
void forward_signals_to(pid_t child);
/// Restores the default handlers installed by forward_signals_to().
void stop_forwarding();

/// The shell's view of a wait status: the exit code, or 128 + the signal that killed it.
int exit_status_of(int wait_status);

/// Waits for `child` (retrying on EINTR) and returns exit_status_of() its status.
Result<int> wait_for_exit(pid_t child);

/// Like wait_for_exit() but does not block: empty while the child still runs.
Result<std::optional<int>> poll_exit(pid_t child);

}  // namespace threadmap::apply
