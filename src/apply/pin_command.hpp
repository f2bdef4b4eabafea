// `threadmap pin` as given, as checked and as one call: the threads of a running process (or one
// thread) pinned to a CPU set resolved on what that process may use.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "threadmap/cpuset.hpp"
#include "threadmap/process.hpp"
#include "threadmap/result.hpp"

namespace threadmap::apply {

/// The options of `threadmap pin` that choose what to pin, as given (one member per flag or
/// positional; errors name these members in Error::input).
struct PinOptions {
  pid_t pid = 0;                     ///< PID: a process (all its threads) or one thread id
  std::string cpus;                  ///< --cpus EXPR
  std::vector<std::string> threads;  ///< --threads TID|PATTERN, any number
};

struct PinCommand;
Result<PinCommand> pin_request(const PinOptions& options);

/// `threadmap pin` checked: made only by pin_request (no public constructor).
struct PinCommand {
 private:
  friend Result<PinCommand> pin_request(const PinOptions& options);
  PinCommand() = default;

 public:
  pid_t pid = 0;                     ///< the process or thread id given
  std::string cpus;                  ///< the CPU expression, resolved on the process's topology
  std::vector<std::string> threads;  ///< tids and name patterns (each pattern well formed)
};

/// Checks `options` before anything is read: a thread name pattern that cannot match
/// (Fault::input about `threads`).
Result<PinCommand> pin_request(const PinOptions& options);

/// What was pinned.
struct PinReport {
  pid_t pid = 0;          ///< the process whose threads were pinned (a thread id's process)
  CpuSet cpus;            ///< the CPU set they were pinned to
  PinOutcome outcome;     ///< per thread: pinned, vanished, failed; tids asked for and missing
  bool selected = false;  ///< threads were selected (by --threads, or one thread id given)
};

/// Finds the process of `command.pid` (a thread id pins that thread only), loads what that
/// process may use, resolves the CPU set on it and pins. Fails: no such process or thread, or a
/// topology that cannot be read (the work's fault); a thread id together with a thread
/// selection (Fault::input about `threads`); a CPU expression that does not resolve or names
/// no CPU (Fault::input about `cpus`); pinning that cannot start. Threads that could not be
/// pinned are in the report, not an error.
Result<PinReport> pin_command(const PinCommand& command);

}  // namespace threadmap::apply
