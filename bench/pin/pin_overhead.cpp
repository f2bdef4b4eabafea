// Pinning overhead on create+join: the same program (tm_spawn_loop) with no preload, under
// `threadmap run` (libthreadmap-pin.so) and under likwid-pin, interleaved round by round so
// all three see the same machine state; prints medians and ratios from this one run.
//
// Two placements: every thread on CPU 0 (the plain run under `taskset -c 0`, so all of them
// place threads identically and only the pinning mechanism differs), and threads spread over
// CPUs 0,1 (the plain run unpinned; pinned runs pay for cross-CPU wake-ups there). Usage:
// bench_pin_overhead [THREADS] [ROUNDS]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kTimeoutS = 60;

// Runs a command (killed after kTimeoutS) and returns the ns per create+join it printed, or
// -1 when it failed or did not finish. `field` 0 = wall ns, 1 = CPU ns.
struct Times {
  double wall = -1;
  double cpu = -1;
};

Times run_once(const std::string& command) {
  std::string limited = "timeout " + std::to_string(kTimeoutS) + " " + command;
  FILE* p = popen((limited + " 2>/dev/null").c_str(), "r");
  if (!p) return Times{};
  char buf[128] = {0};
  bool got = std::fgets(buf, sizeof buf, p) != nullptr;
  int status = pclose(p);
  Times t;
  if (got && status == 0 && std::sscanf(buf, "%lf %lf", &t.wall, &t.cpu) != 2) t = Times{};
  if (status != 0) t = Times{};
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? -1 : v[v.size() / 2];
}

bool have_likwid() { return std::system("command -v likwid-pin >/dev/null 2>&1") == 0; }

struct Config {
  std::string label;
  std::string command;
  std::vector<double> wall;
  std::vector<double> cpu;
};

void measure(const std::string& title, std::vector<Config>& configs, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    for (auto& c : configs) {
      // A configuration that failed or hung once is not run again.
      if (c.command.empty() || (!c.wall.empty() && c.wall.back() < 0)) continue;
      Times t = run_once(c.command);
      c.wall.push_back(t.wall);
      c.cpu.push_back(t.cpu);
    }
  }
  auto ok = [](const Config& c) {
    return !c.command.empty() && !c.wall.empty() &&
           std::none_of(c.wall.begin(), c.wall.end(), [](double x) { return x < 0; });
  };
  double base_wall = median(configs[0].wall), base_cpu = median(configs[0].cpu);
  std::printf("\n%s\n", title.c_str());
  std::printf("  %-34s %10s %9s %10s %9s\n", "configuration", "wall ns", "ratio", "CPU ns",
              "ratio");
  for (auto& c : configs) {
    if (c.command.empty()) {
      std::printf("  %-34s not installed\n", c.label.c_str());
    } else if (!ok(c)) {
      std::printf("  %-34s failed or did not finish within %d s\n", c.label.c_str(), kTimeoutS);
    } else {
      double w = median(c.wall), u = median(c.cpu);
      std::printf("  %-34s %10.0f %8.3fx %10.0f %8.3fx\n", c.label.c_str(), w, w / base_wall, u,
                  u / base_cpu);
    }
  }
  for (size_t i = 2; i < configs.size(); ++i)
    if (ok(configs[1]) && ok(configs[i]))
      std::printf("  threadmap / %s: wall %.3fx, CPU %.3fx (below 1 = threadmap faster)\n",
                  configs[i].label.c_str(), median(configs[1].wall) / median(configs[i].wall),
                  median(configs[1].cpu) / median(configs[i].cpu));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string threads = argc > 1 ? argv[1] : "20000";
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
  const std::string loop = std::string(SPAWN_LOOP) + " " + threads;
  const std::string tm = THREADMAP_BIN;
  const bool likwid = have_likwid();
  const std::string likwid_threads = std::to_string(std::min(std::atol(threads.c_str()), 200L));
  setvbuf(stdout, nullptr, _IOLBF, 0);
  std::printf(
      "pinning overhead: %s create+join per run, median of %d interleaved rounds; "
      "per create+join: wall-clock ns and process CPU ns (all threads, user+system)\n",
      threads.c_str(), rounds);

  std::vector<Config> same = {
      {"no preload (taskset -c 0)", "taskset -c 0 " + loop, {}, {}},
      {"threadmap run --cpus 0", tm + " run --cpus 0 -- " + loop, {}, {}},
      // -c 0 only sets the process's mask once (no per-thread work); -c 0,0 makes likwid pin
      // every thread, like threadmap does. It is so slow here (ms per thread) that it runs
      // fewer threads; the figures are per create+join either way.
      {"likwid-pin -c 0", likwid ? "likwid-pin -q -c 0 " + loop : "", {}, {}},
      {"likwid-pin -c 0,0 (" + likwid_threads + " threads)",
       likwid ? "likwid-pin -q -c 0,0 " + std::string(SPAWN_LOOP) + " " + likwid_threads : "",
       {},
       {}}};
  measure("every thread on CPU 0 (same placement, only the mechanism differs):", same, rounds);

  std::vector<Config> spread = {
      {"no preload (unpinned)", loop, {}, {}},
      {"threadmap run --cpus 0,1 (cycle)",
       tm + " run --cpus 0,1 --policy round-robin -- " + loop,
       {},
       {}},
      {"likwid-pin -c 0,1", likwid ? "likwid-pin -q -c 0,1 " + loop : "", {}, {}}};
  measure("threads spread over CPUs 0,1:", spread, rounds);
  return 0;
}
