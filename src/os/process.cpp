#include "src/os/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "src/os/monotonic_clock.hpp"

extern char** environ;

namespace threadmap::os {
namespace {

std::atomic<pid_t> g_forward_to{0};
std::atomic<bool> g_interrupted{false};
constexpr int kForwarded[] = {SIGINT,  SIGTERM, SIGHUP,   SIGQUIT,
                              SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT};
struct sigaction g_saved_forwarded[sizeof kForwarded / sizeof kForwarded[0]];
struct sigaction g_saved_interrupt[2];

void forward(int sig, siginfo_t* info, void*) {
  // Terminal-generated SIGINT/SIGQUIT (si_code SI_KERNEL) already went to the whole foreground
  // process group, child included.
  if ((sig == SIGINT || sig == SIGQUIT) && info && info->si_code == SI_KERNEL) return;
  pid_t child = g_forward_to.load();
  if (child > 0) kill(child, sig);
}

void on_interrupt(int) { g_interrupted.store(true); }

bool is_sanitizer_runtime(const std::string& entry) {
  std::string base = entry.substr(entry.rfind('/') == std::string::npos ? 0 : entry.rfind('/') + 1);
  for (const char* prefix : {"libasan", "libtsan", "libubsan", "liblsan", "libclang_rt."})
    if (base.rfind(prefix, 0) == 0) return true;
  return false;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

Error cannot_run(const std::string& program, int e) {
  return Error::from_errno(e, "cannot run '" + program + "': " + std::strerror(e));
}

// The whole program placed as taskset and numactl place it: this thread takes the CPUs and the
// memory policy while it spawns (posix_spawn's child is a vfork of it and inherits both, before
// any thread of the program exists), then gets its own back.
class WholeProgramPlacement {
 public:
  static constexpr unsigned long kNodeWords = 1024 / (8 * sizeof(unsigned long));

  Status take(const LaunchSpec& spec) {
    if (!spec.cpus.empty()) {
      cpu_set_t want;
      CPU_ZERO(&want);
      for (int cpu : spec.cpus)
        if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &want);
      if (sched_getaffinity(0, sizeof cpus_, &cpus_) != 0 ||
          sched_setaffinity(0, sizeof want, &want) != 0)
        return failure(spec, "on CPUs");
      cpus_taken_ = true;
    }
    if (spec.memory_mode >= 0) {
      unsigned long want[kNodeWords] = {};
      for (int node : spec.memory_nodes)
        if (node >= 0 && node < 1024)
          want[node / (8 * sizeof(unsigned long))] |= 1UL << (node % (8 * sizeof(unsigned long)));
      // maxnode is one more than the mask's bits: the kernel drops the last (as libnuma passes).
      const unsigned long maxnode =
          spec.memory_nodes.empty() ? 0 : kNodeWords * 8 * sizeof(long) + 1;
      if (syscall(SYS_get_mempolicy, &mode_, nodes_, kNodeWords * 8 * sizeof(long), nullptr, 0) !=
              0 ||
          syscall(SYS_set_mempolicy, spec.memory_mode, spec.memory_nodes.empty() ? nullptr : want,
                  maxnode) != 0)
        return failure(spec, "with memory policy");
      memory_taken_ = true;
    }
    return {};
  }
  ~WholeProgramPlacement() {
    const int e = errno;
    if (cpus_taken_) sched_setaffinity(0, sizeof cpus_, &cpus_);
    if (memory_taken_) syscall(SYS_set_mempolicy, mode_, nodes_, kNodeWords * 8 * sizeof(long) + 1);
    errno = e;
  }

 private:
  Error failure(const LaunchSpec& spec, const char* what) {
    const int e = errno;
    return Error::from_errno(
        e, "cannot start '" + spec.argv[0] + "' " + what + " as asked: " + std::strerror(e));
  }
  cpu_set_t cpus_{};
  int mode_ = 0;
  unsigned long nodes_[kNodeWords] = {};
  bool cpus_taken_ = false;
  bool memory_taken_ = false;
};

Result<pid_t> spawn_with(const LaunchSpec& spec, const posix_spawn_file_actions_t* actions) {
  if (spec.argv.empty() || spec.argv[0].empty()) return Error::invalid("no program to run");
  WholeProgramPlacement placement;
  if (Status placed = placement.take(spec); !placed) return placed.error();
  std::vector<std::string> env = child_environment(spec);
  std::vector<std::string> args = spec.argv;
  std::vector<char*> c_env = c_strings(env);
  std::vector<char*> c_args = c_strings(args);
  pid_t pid = 0;
  int rc = spec.search_path
               ? posix_spawnp(&pid, c_args[0], actions, nullptr, c_args.data(), c_env.data())
               : posix_spawn(&pid, c_args[0], actions, nullptr, c_args.data(), c_env.data());
  if (rc != 0) return cannot_run(spec.argv[0], rc);
  return pid;
}

Error wait_error(pid_t child) {
  int e = errno;
  return Error::from_errno(
      e, "cannot wait for process " + std::to_string(child) + ": " + std::strerror(e));
}

}  // namespace

std::string compose_ld_preload(const std::vector<std::string>& preload, const char* existing) {
  std::vector<std::string> front, back;
  if (existing) {
    std::string all = existing;
    std::size_t pos = 0;
    while (pos <= all.size()) {
      std::size_t end = all.find_first_of(": ", pos);
      if (end == std::string::npos) end = all.size();
      std::string entry = all.substr(pos, end - pos);
      if (!entry.empty()) (is_sanitizer_runtime(entry) ? front : back).push_back(entry);
      pos = end + 1;
    }
  }
  std::string out;
  auto append = [&out](const std::string& e) { out += (out.empty() ? "" : ":") + e; };
  for (const auto& e : front) append(e);
  for (const auto& e : preload) append(e);
  for (const auto& e : back) append(e);
  return out;
}

std::vector<std::pair<std::string, std::string>> environment_variables() {
  std::vector<std::pair<std::string, std::string>> out;
  for (char** e = environ; e && *e; ++e) {
    std::string entry = *e;
    size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    out.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return out;
}

std::vector<std::string> child_environment(const LaunchSpec& spec) {
  std::vector<std::pair<std::string, std::string>> set_env = spec.set_env;
  if (!spec.preload.empty())
    set_env.emplace_back("LD_PRELOAD", compose_ld_preload(spec.preload, std::getenv("LD_PRELOAD")));
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string entry = *e;
    std::string key = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const auto& kv : set_env) overridden = overridden || kv.first == key;
    if (!overridden) out.push_back(entry);
  }
  // Later overrides of the same name win, so a caller can refine what an earlier one set.
  for (std::size_t i = 0; i < set_env.size(); ++i) {
    bool replaced_later = false;
    for (std::size_t j = i + 1; j < set_env.size(); ++j)
      replaced_later = replaced_later || set_env[j].first == set_env[i].first;
    if (!replaced_later) out.push_back(set_env[i].first + "=" + set_env[i].second);
  }
  return out;
}

Result<pid_t> spawn(const LaunchSpec& spec) { return spawn_with(spec, nullptr); }

int start_failure_status(const Error& error) { return error.code.value() == ENOENT ? 127 : 126; }

int exit_status_of(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

Result<int> wait_for_exit(pid_t child) {
  int status = 0;
  for (;;) {
    pid_t r = waitpid(child, &status, 0);
    if (r == child) return exit_status_of(status);
    if (r < 0 && errno == EINTR) continue;
    return wait_error(child);
  }
}

Result<std::optional<int>> poll_exit(pid_t child) {
  int status = 0;
  for (;;) {
    pid_t r = waitpid(child, &status, WNOHANG);
    if (r == 0) return std::optional<int>{};
    if (r == child) return std::optional<int>{exit_status_of(status)};
    if (r < 0 && errno == EINTR) continue;
    return wait_error(child);
  }
}

Result<std::optional<int>> wait_for_exit_until(pid_t child, std::int64_t deadline_ns,
                                               bool (*stop_early)()) {
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, child, 0));
  for (;;) {
    auto exited = poll_exit(child);
    if (!exited || *exited) {
      if (pidfd >= 0) close(pidfd);
      return exited;
    }
    const std::int64_t left_ns = deadline_ns - monotonic_ns();
    if (left_ns <= 0) break;
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      // Round up: a poll that returns a hair early would spin.
      int rc = poll(&p, 1, static_cast<int>((left_ns + 999999) / 1000000));
      if (rc < 0 && errno == EINTR && stop_early && stop_early()) break;
    } else if (!sleep_until_ns(deadline_ns, stop_early)) {
      break;
    }
  }
  if (pidfd >= 0) close(pidfd);
  return std::optional<int>{};
}

SignalForwarding::SignalForwarding(pid_t child) {
  g_forward_to.store(child);
  struct sigaction sa {};
  sa.sa_sigaction = forward;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (std::size_t i = 0; i < sizeof kForwarded / sizeof kForwarded[0]; ++i)
    sigaction(kForwarded[i], &sa, &g_saved_forwarded[i]);
}

SignalForwarding::~SignalForwarding() {
  for (std::size_t i = 0; i < sizeof kForwarded / sizeof kForwarded[0]; ++i)
    sigaction(kForwarded[i], &g_saved_forwarded[i], nullptr);
  g_forward_to.store(0);
}

InterruptFlag::InterruptFlag() {
  g_interrupted.store(false);
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_saved_interrupt[0]);
  sigaction(SIGTERM, &sa, &g_saved_interrupt[1]);
}

InterruptFlag::~InterruptFlag() {
  sigaction(SIGINT, &g_saved_interrupt[0], nullptr);
  sigaction(SIGTERM, &g_saved_interrupt[1], nullptr);
}

bool InterruptFlag::interrupted() { return g_interrupted.load(); }

Result<CapturedRun> run_captured(const LaunchSpec& spec, double timeout_seconds) {
  if (spec.argv.empty()) return Error::invalid("no program to run");
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0)
    return Error::from_errno(errno, std::string("pipe: ") + std::strerror(errno));
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    int saved = errno;
    close(out_pipe[0]);
    close(out_pipe[1]);
    return Error::from_errno(saved, std::string("pipe: ") + std::strerror(saved));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  Result<pid_t> started = spawn_with(spec, &actions);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (!started) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return started.error();
  }
  const pid_t child = *started;

  CapturedRun result;
  const std::int64_t deadline = monotonic_ns() + static_cast<std::int64_t>(timeout_seconds * 1e9);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.stdout_text, &result.stderr_text};
  int open_fds = 2;
  bool timed_out = false;
  while (open_fds > 0) {
    const std::int64_t left_ms = (deadline - monotonic_ns()) / 1000000;
    if (left_ms <= 0) {
      timed_out = true;
      break;
    }
    int ready = poll(fds, 2, static_cast<int>(left_ms));
    if (ready <= 0) continue;  // EINTR or the time-out: the loop re-checks the deadline
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (pollfd& p : fds)
    if (p.fd >= 0) close(p.fd);
  if (timed_out) kill(child, SIGKILL);
  auto status = wait_for_exit(child);
  if (timed_out)
    return Error::from_errno(ETIMEDOUT, "'" + spec.argv[0] + "' did not finish within " +
                                            std::to_string(static_cast<int>(timeout_seconds)) +
                                            " s and was killed");
  if (!status) return status.error();
  result.exit_status = *status;
  return result;
}

}  // namespace threadmap::os
