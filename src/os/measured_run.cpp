#include "src/os/measured_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "src/os/monotonic_clock.hpp"

namespace threadmap::os {
namespace {

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; }

}  // namespace

Result<MeasuredRun> run_measured(const LaunchSpec& spec, std::size_t keep_bytes) {
  if (spec.argv.empty() || spec.argv[0].empty()) return Error::invalid("no program to run");
  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0)
    return Error::from_errno(errno, std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDERR_FILENO);
  std::vector<std::string> env = child_environment(spec);
  std::vector<std::string> args = spec.argv;
  std::vector<char*> c_env = c_strings(env);
  std::vector<char*> c_args = c_strings(args);
  pid_t child = 0;
  const std::int64_t t0 = monotonic_ns();
  int rc = spec.search_path
               ? posix_spawnp(&child, c_args[0], &actions, nullptr, c_args.data(), c_env.data())
               : posix_spawn(&child, c_args[0], &actions, nullptr, c_args.data(), c_env.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    return Error::from_errno(rc, "cannot run '" + spec.argv[0] + "': " + std::strerror(rc));
  }
  MeasuredRun run;
  bool passed_interrupt = false;
  for (;;) {
    // A Ctrl-C typed at the terminal reaches the program itself (same process group); a
    // SIGTERM sent to us alone is passed on here, once.
    if (!passed_interrupt && InterruptFlag::interrupted()) {
      kill(child, SIGTERM);
      passed_interrupt = true;
    }
    pollfd p{out_pipe[0], POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;  // EINTR or quiet: re-check the flag
    char buffer[8192];
    ssize_t n = read(out_pipe[0], buffer, sizeof buffer);
    if (n > 0) {
      std::size_t room = keep_bytes > run.output.size() ? keep_bytes - run.output.size() : 0;
      std::size_t take = std::min(room, static_cast<std::size_t>(n));
      run.output.append(buffer, take);
      run.output_truncated = run.output_truncated || take < static_cast<std::size_t>(n);
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(out_pipe[0]);
  int status = 0;
  rusage usage{};
  for (;;) {
    pid_t r = wait4(child, &status, 0, &usage);
    if (r == child) break;
    if (r < 0 && errno == EINTR) continue;
    int e = errno;
    return Error::from_errno(
        e, "cannot wait for process " + std::to_string(child) + ": " + std::strerror(e));
  }
  run.wall_s = static_cast<double>(monotonic_ns() - t0) / 1e9;
  run.cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  run.exit_status = exit_status_of(status);
  return run;
}

}  // namespace threadmap::os
