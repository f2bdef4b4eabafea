// Launcher: posix_spawnp reports exec failures (glibc waits for the exec), so "cannot start"
// is an error value here rather than a child that exits 127.
#include "src/apply/launcher.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace threadmap::apply {
namespace {

std::atomic<pid_t> g_forward_to{0};
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT};

void forward(int sig, siginfo_t* info, void*) {
  // Terminal-generated SIGINT/SIGQUIT (si_code SI_KERNEL) already went to the whole foreground
  // process group, child included.
  if ((sig == SIGINT || sig == SIGQUIT) && info && info->si_code == SI_KERNEL) return;
  pid_t child = g_forward_to.load();
  if (child > 0) kill(child, sig);
}

bool is_file(const std::filesystem::path& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_sanitizer_runtime(const std::string& entry) {
  std::string base = std::filesystem::path(entry).filename().string();
  return base.rfind("libasan", 0) == 0 || base.rfind("libtsan", 0) == 0 ||
         base.rfind("libubsan", 0) == 0 || base.rfind("liblsan", 0) == 0 ||
         base.rfind("libclang_rt.", 0) == 0;
}

}  // namespace

Result<std::string> find_preload_library(const std::string& name) {
  std::string file = "libthreadmap-" + name + ".so";
  std::vector<std::filesystem::path> candidates;
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto bin = exe.parent_path();
    candidates.push_back(bin.parent_path() / "lib" / file);
    candidates.push_back(bin.parent_path() / "lib64" / file);
    candidates.push_back(bin / file);
  }
#ifdef THREADMAP_INSTALL_LIBDIR
  candidates.push_back(std::filesystem::path(THREADMAP_INSTALL_LIBDIR) / file);
#endif
  std::string looked;
  for (const auto& c : candidates) {
    if (is_file(c)) return std::filesystem::absolute(c).lexically_normal().string();
    looked += (looked.empty() ? "" : ", ") + c.lexically_normal().string();
  }
  return Error::from_errno(ENOENT, "cannot find " + file + " (looked in " + looked + ")");
}

std::string compose_ld_preload(const std::vector<std::string>& preload, const char* existing) {
  std::vector<std::string> front, back;
  if (existing) {
    std::string all = existing;
    size_t pos = 0;
    while (pos <= all.size()) {
      size_t end = all.find_first_of(": ", pos);
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

Result<pid_t> spawn(const LaunchSpec& spec) {
  if (spec.argv.empty()) return Error::invalid("no command to run");
  // The child's environment: ours, minus what we override, plus the overrides.
  std::vector<std::pair<std::string, std::string>> set_env = spec.set_env;
  if (!spec.preload.empty())
    set_env.emplace_back("LD_PRELOAD", compose_ld_preload(spec.preload, std::getenv("LD_PRELOAD")));
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    std::string key = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const auto& [k, v] : set_env) overridden = overridden || k == key;
    if (!overridden) env_strings.push_back(entry);
  }
  for (const auto& [k, v] : set_env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data());
  if (rc != 0)
    return Error::from_errno(rc, "cannot run '" + spec.argv[0] + "': " + std::strerror(rc));
  return pid;
}

void forward_signals_to(pid_t child) {
  g_forward_to.store(child);
  struct sigaction sa{};
  sa.sa_sigaction = forward;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int sig : kForwarded) sigaction(sig, &sa, nullptr);
}

void stop_forwarding() {
  struct sigaction sa{};
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  for (int sig : kForwarded) sigaction(sig, &sa, nullptr);
  g_forward_to.store(0);
}

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
    return Error::from_errno(errno, "cannot wait for process " + std::to_string(child) + ": " +
                                        std::strerror(errno));
  }
}

Result<std::optional<int>> poll_exit(pid_t child) {
  int status = 0;
  for (;;) {
    pid_t r = waitpid(child, &status, WNOHANG);
    if (r == 0) return std::optional<int>{};
    if (r == child) return std::optional<int>{exit_status_of(status)};
    if (r < 0 && errno == EINTR) continue;
    return Error::from_errno(errno, "cannot wait for process " + std::to_string(child) + ": " +
                                        std::strerror(errno));
  }
}

}  // namespace threadmap::apply
