// Running a helper program (bin/threadmap-spawn) and capturing what it prints, with a time
// limit, so a hung child cannot hang the bench or the report.
#pragma once

#include <string>
#include <vector>

#include "threadmap/result.hpp"

namespace threadmap::experiments {

/// What a finished child printed and how it ended.
struct ProcessOutput {
  std::string stdout_text;
  std::string stderr_text;
  int exit_status = -1;  ///< exit code, or 128 + signal number when killed by a signal
};

/// Runs `argv` (argv[0] is a path, no PATH search) with the current environment plus `extra_env`
/// ("NAME=value" entries, overriding). Kills the child (SIGKILL) after `timeout_seconds`.
/// Fails when it cannot be started (ENOENT naming the path) or timed out (ETIMEDOUT);
/// a non-zero exit is not a failure here, the caller reads exit_status.
Result<ProcessOutput> run_process(const std::vector<std::string>& argv,
                                  const std::vector<std::string>& extra_env,
                                  double timeout_seconds);

}  // namespace threadmap::experiments
