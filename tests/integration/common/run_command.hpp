// Shared by the integration tests: run a shell command line as a user would and capture what
// it printed on stdout and stderr, separately, and its exit status.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace tm_test {

struct CommandResult {
  int status = -1;  ///< exit status; -1 when killed by a signal or not started
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

/// Runs `command` through /bin/sh. stderr goes through a temporary file so the two streams stay
/// apart (tests check that errors are one line on stderr).
inline CommandResult run(const std::string& command) {
  static int serial = 0;
  std::string err_path =
      testing::TempDir() + "tm_stderr_" + std::to_string(getpid()) + "_" + std::to_string(++serial);
  CommandResult r;
  FILE* pipe = popen((command + " 2>" + err_path).c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  int st = pclose(pipe);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream in(err_path);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  std::remove(err_path.c_str());
  return r;
}

}  // namespace tm_test
