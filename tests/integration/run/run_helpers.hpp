// Helpers for the run/watch integration tests: run a shell command, collect its output, and
// parse the probes' "<label> cpu=N affinity=LIST" lines.
#pragma once

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace tm_test {

struct Output {
  int status = -1;  // exit code (128 + signal when killed)
  std::string out;
  std::string err;
};

inline std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline Output run(const std::string& command) {
  static int counter = 0;
  std::string err_path =
      "/tmp/tm_run_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + ".err";
  Output o;
  FILE* p = popen((command + " 2>" + err_path).c_str(), "r");
  if (!p) return o;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) o.out.append(buf, n);
  int st = pclose(p);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  o.err = read_all(err_path);
  unlink(err_path.c_str());
  return o;
}

struct Placement {
  int cpu = -1;
  std::string affinity;
};

inline std::map<std::string, Placement> placements(const std::string& out) {
  std::map<std::string, Placement> m;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    auto cpu = line.find(" cpu=");
    auto aff = line.find(" affinity=");
    if (cpu == std::string::npos || aff == std::string::npos) continue;
    Placement p;
    p.cpu = std::stoi(line.substr(cpu + 5, aff - cpu - 5));
    p.affinity = line.substr(aff + 10);
    m[line.substr(0, cpu)] = p;
  }
  return m;
}

inline bool have_cpus_0_and_1() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  return CPU_ISSET(0, &set) && CPU_ISSET(1, &set);
}

// Removes every /tmp/tm_test_<pid>_* file when the test program ends: what write_temp made and
// what the tool wrote there. A machine that runs the suite many times must not collect them.
struct TempFileSweeper {
  pid_t owner = getpid();
  std::string prefix = "tm_test_" + std::to_string(owner) + "_";
  ~TempFileSweeper() {
    if (getpid() != owner) return;  // a forked child leaves its parent's files alone
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/tmp", ec))
      if (entry.path().filename().string().rfind(prefix, 0) == 0)
        std::filesystem::remove(entry.path(), ec);
  }
};

inline std::string write_temp(const std::string& name, const std::string& text) {
  static TempFileSweeper sweeper;
  std::string path = "/tmp/" + sweeper.prefix + name;
  std::ofstream(path) << text;
  return path;
}

inline int count_lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace tm_test
