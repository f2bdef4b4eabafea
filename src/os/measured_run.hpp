// Running a program once to measure it: its wall time (CLOCK_MONOTONIC around spawn and reap),
// its CPU time (user + system from wait4's rusage: the kernel's own account, children it reaped
// included) and its output (stdout and stderr through one pipe, so their order is kept). `tune`
// runs the user's program this way under each candidate placement.
#pragma once

#include <cstddef>
#include <string>

#include "src/os/process.hpp"
#include "threadmap/result.hpp"

namespace threadmap::os {

/// One measured run.
struct MeasuredRun {
  int exit_status = -1;  ///< exit code, or 128 + signal when killed
  double wall_s = 0;     ///< spawn to reap
  double cpu_s = 0;      ///< user + system time of the program (wait4 rusage)
  std::string output;    ///< stdout and stderr interleaved, at most `keep_bytes` (the start)
  bool output_truncated = false;
};

/// Runs `spec` to its end with its output captured (up to `keep_bytes`; the rest is read and
/// dropped so the program never blocks on a full pipe). While it runs, a SIGINT or SIGTERM sent
/// to us (InterruptFlag) is passed to it. Fails only when it cannot be started.
Result<MeasuredRun> run_measured(const LaunchSpec& spec, std::size_t keep_bytes = 1 << 20);

}  // namespace threadmap::os
