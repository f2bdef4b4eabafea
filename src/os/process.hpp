// Starting programs: the environment they get (ours, plus overrides, with LD_PRELOAD composed so
// sanitizer runtimes stay first), waiting for them with the shell's exit-status rules, passing
// on the signals we receive, and running a helper with its output captured under a time limit.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "threadmap/result.hpp"

namespace threadmap::os {

/// What to start and how.
struct LaunchSpec {
  std::vector<std::string> argv;                             ///< program and arguments
  std::vector<std::pair<std::string, std::string>> set_env;  ///< variables set in the child
  std::vector<std::string> preload;  ///< libraries put in front of LD_PRELOAD, in this order
  bool search_path = true;  ///< PATH lookup for argv[0] (as execvp); false: argv[0] is a path
  /// The CPUs the whole program starts on, as taskset does: every thread it ever makes inherits
  /// them. Empty: ours. (For a program no preload library can load into: apply/run_request.)
  std::vector<int> cpus;
  /// The memory policy the whole program starts with, as numactl does (kept across exec and
  /// inherited by every thread): a set_mempolicy mode number (the kernel ABI: 1 preferred,
  /// 2 bind, 3 interleave, 4 local) and its OS node numbers. -1: ours.
  int memory_mode = -1;
  std::vector<int> memory_nodes;
};

/// The LD_PRELOAD value for a child: `preload` first, then what `existing` held — except
/// sanitizer runtimes (libasan, libtsan, libubsan, liblsan, libclang_rt.*) found there, which
/// must stay first or the child aborts at start. Entries are separated by ':' or ' ' as ld.so
/// accepts; empty entries are dropped.
std::string compose_ld_preload(const std::vector<std::string>& preload, const char* existing);

/// The child's environment as NAME=value strings: this process's, with spec.set_env (and the
/// composed LD_PRELOAD when spec.preload is not empty) replacing variables of the same name.
std::vector<std::string> child_environment(const LaunchSpec& spec);

/// This process's environment as (NAME, value) pairs, in order (what a launcher told it).
std::vector<std::pair<std::string, std::string>> environment_variables();

/// Starts the program. posix_spawn reports exec failures (glibc waits for the exec), so "cannot
/// start" is an error here (ENOENT, EACCES... "cannot run 'CMD': why") rather than a child that
/// exits 127; nothing is left running on failure. With spec.cpus or spec.memory_mode, the
/// calling thread takes them for the moment of the spawn (the child inherits its thread's
/// affinity and policy) and gets its own back; when they cannot be set nothing starts ("cannot
/// place 'CMD' on CPUs 0-1: why").
Result<pid_t> spawn(const LaunchSpec& spec);

/// The exit status a shell would report when a program could not be started: 127 when it was
/// not found (ENOENT), else 126.
int start_failure_status(const Error& error);
/// The shell's view of a wait status: the exit code, or 128 + the signal that killed it.
int exit_status_of(int wait_status);
/// Waits for `child` (retrying on EINTR); returns exit_status_of() its status.
Result<int> wait_for_exit(pid_t child);
/// Like wait_for_exit() but does not block: empty while the child still runs.
Result<std::optional<int>> poll_exit(pid_t child);
/// Waits for `child` to exit until CLOCK_MONOTONIC reaches `deadline_ns`: its status as soon as
/// it exits (a pidfd wakes us at once, so a program's end is seen to the microsecond, not at the
/// next sample), or empty at the deadline. A signal ends the wait early, empty, when
/// `stop_early()` then says so. Kernels without pidfd_open (< 5.3) sleep to the deadline.
Result<std::optional<int>> wait_for_exit_until(pid_t child, std::int64_t deadline_ns,
                                               bool (*stop_early)() = nullptr);

/// While alive, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH and SIGCONT sent to
/// this process are passed to `child`. SIGINT/SIGQUIT typed at the terminal already reach the
/// child (same process group) and are not sent twice. The previous handlers come back when it is
/// destroyed (after the child was reaped). One at a time per process.
class SignalForwarding {
 public:
  explicit SignalForwarding(pid_t child);
  ~SignalForwarding();
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;
};

/// While alive, SIGINT and SIGTERM only set a flag (interrupted()) instead of ending this process:
/// a watcher then stops sampling and still prints what it saw.
class InterruptFlag {
 public:
  InterruptFlag();
  ~InterruptFlag();
  InterruptFlag(const InterruptFlag&) = delete;
  InterruptFlag& operator=(const InterruptFlag&) = delete;
  /// True once SIGINT or SIGTERM arrived.
  static bool interrupted();
};

/// What a finished helper printed and how it ended.
struct CapturedRun {
  std::string stdout_text;
  std::string stderr_text;
  int exit_status = -1;  ///< exit code, or 128 + signal number when killed by a signal
};
/// Runs `spec` with stdout and stderr captured; kills it (SIGKILL) after `timeout_seconds`.
/// Fails when it cannot be started, or timed out (ETIMEDOUT); a non-zero exit is not a failure
/// here, the caller reads exit_status.
Result<CapturedRun> run_captured(const LaunchSpec& spec, double timeout_seconds);

}  // namespace threadmap::os
