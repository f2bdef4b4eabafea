// The spawn experiment (Dice & Kogan, "Intra-process Caching and Reuse of Threads"): creator
// threads loop pthread_create + pthread_join as fast as they can; with the thread cache
// preloaded, an exiting thread is parked and reused instead of torn down. Published:
// 158,940 -> 1,399,817 threads/s at 32 creators (8.8x), 5.9x at 1 creator. The loop lives in
// bin/threadmap-spawn, run here with and without LD_PRELOAD of lib/libthreadmap-cache.so.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "src/experiments/bench_runner.hpp"
#include "src/experiments/experiments.hpp"
#include "src/experiments/run_interleaved.hpp"
#include "src/os/files.hpp"
#include "src/os/install_layout.hpp"
#include "src/os/process.hpp"

namespace threadmap::experiments {
namespace {

bool exists(const std::string& path) { return !path.empty() && os::is_regular_file(path); }

// --seconds as threadmap-spawn parses it (%g: no trailing zeros).
std::string seconds_argument(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", seconds);
  return buffer;
}

// Per creator count the bench runs glibc, the cache, and the hand-off floor (what passing a job
// to a waiting thread and back costs at best here: 1 pair through spinning cache lines, N pairs
// through futex wake/wait), so the cache is judged against both in the same run.
enum class Side { kGlibc, kCache, kFloor };

// What variant i runs: its creator count and side.
struct Setup {
  int creators;
  Side side;
};

// Why the bench cannot run: a tool it starts is missing; empty when both are there.
std::string missing_tool(const SpawnOptions& options) {
  for (const auto& [path, what] : {std::pair{options.spawn_binary, "the spawn benchmark program"},
                                   std::pair{options.cache_library, "the thread cache library"}})
    if (!exists(path))
      return std::string(what) +
             (path.empty() ? std::string(" was not found") : " '" + path + "'") +
             " is not built (build the threadmap-spawn and "
             "threadmap-cache targets)";
  return "";
}

Variant spawn_variant(const Setup& setup) {
  const int creators = setup.creators;
  const std::string suffix = std::to_string(creators) + "-creator" + (creators > 1 ? "s" : "");
  const std::string who = std::to_string(creators) + (creators > 1 ? " creators, " : " creator, ");
  Variant v;
  if (setup.side == Side::kFloor) {
    v.name = "floor-" + suffix;
    v.label = who + "hand-off floor";
    v.unit = "round trips/s";  // a reference beside the creates, in its own quantity
    v.placement = creators == 1 ? "1 pair of threads exchanging a job through two spinning "
                                  "cache lines (round trips/s)"
                                : std::to_string(creators) +
                                      " pairs of threads exchanging jobs through futex "
                                      "wake/wait (round trips/s)";
    for (int c = 0; c < creators; ++c) v.threads.push_back({"pair " + std::to_string(c + 1), {}});
    return v;
  }
  bool cache = setup.side == Side::kCache;
  v.name = (cache ? "cache-" : "no-cache-") + suffix;
  v.label = who + (cache ? "thread cache" : "no cache");
  v.baseline = cache ? "no-cache-" + suffix : "";
  v.placement = std::to_string(creators) + " creator thread" + (creators > 1 ? "s" : "") +
                ", not pinned" + (cache ? "; thread cache preloaded" : "");
  for (int c = 0; c < creators; ++c) v.threads.push_back({"creator " + std::to_string(c + 1), {}});
  return v;
}

// One creator, and as many creators as usable CPUs; each with its three sides.
std::vector<Setup> spawn_setups(const CpuSet& usable) {
  std::vector<int> creator_counts{1};
  if (usable.count() > 1) creator_counts.push_back(static_cast<int>(usable.count()));
  std::vector<Setup> setups;
  for (int creators : creator_counts)
    for (Side side : {Side::kGlibc, Side::kCache, Side::kFloor}) setups.push_back({creators, side});
  return setups;
}

// System calls per create+join, per variant, as threadmap-spawn counted them in its runs.
struct SyscallSamples {
  std::vector<std::vector<double>> per_variant;
  std::vector<std::string> missing;  ///< per variant: why a run could not count them
};

// One run of threadmap-spawn for `setup` (with the cache preloaded on the cache side), read
// from the JSON it prints; keeps its system-call count when `record`.
Result<double> run_spawn_once(const SpawnOptions& options, const Setup& setup, double seconds,
                              bool record, std::size_t index, SyscallSamples& syscalls) {
  os::LaunchSpec spec;
  spec.argv = {options.spawn_binary,      "--creators", std::to_string(setup.creators), "--seconds",
               seconds_argument(seconds), "--json"};
  if (setup.side == Side::kFloor)
    spec.argv.push_back("--floor");
  else
    spec.argv.insert(spec.argv.end(), {"--variant", "pthread"});
  spec.search_path = false;
  // Composed like `run`'s LD_PRELOAD: a sanitizer runtime already preloaded stays first.
  if (setup.side == Side::kCache) spec.preload.push_back(options.cache_library);
  Result<os::CapturedRun> out = os::run_captured(spec, 30 + 5 * seconds);
  if (!out) return out.error();
  if (out->exit_status != 0)
    return Error::from_errno(EIO, "'" + options.spawn_binary + "' exited with status " +
                                      std::to_string(out->exit_status) + ": " +
                                      out->stderr_text.substr(0, 200));
  const char* key = setup.side == Side::kFloor ? "round_trips_per_second" : "threads_per_second";
  nlohmann::json doc = nlohmann::json::parse(out->stdout_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains(key) || !doc[key].is_number())
    return Error::from_errno(EIO, "'" + options.spawn_binary + "' did not print JSON with " + key +
                                      ": " + out->stdout_text.substr(0, 200));
  if (record && setup.side != Side::kFloor) {
    if (doc.contains("syscalls_per_cycle") && doc["syscalls_per_cycle"].is_number())
      syscalls.per_variant[index].push_back(doc["syscalls_per_cycle"].get<double>());
    else
      syscalls.missing[index] = "the kernel did not let threadmap-spawn count system calls";
  }
  return doc[key].get<double>();
}

Counter syscall_counter(const std::vector<double>& samples, const std::string& missing) {
  Counter c;
  c.name = "syscalls_per_create_join";
  c.unit = "system calls per create+join";
  c.how =
      "raw_syscalls:sys_enter tracepoint over every thread (perf_event_open, inherited), in "
      "a shorter pass before the timed one (the tracepoint slows every system call), "
      "measured";
  c.supported = !samples.empty() && missing.empty();
  if (c.supported)
    c.median = summarize_runs(samples).median;
  else
    c.reason = missing.empty() ? "not measured" : missing;
  return c;
}

}  // namespace

// A floor below glibc's own create+join rate is no floor (a recycle's hand-off cannot cost more
// than a whole create and join): the spinning pair did not get a CPU each.
std::string cache_against_floor(const Variant& glibc, const Variant& cache, const Variant& floor) {
  const std::string who = cache.label.substr(0, cache.label.find(','));
  if (glibc.value.median > 0 && floor.value.median < glibc.value.median)
    return fmt::format(
        "{}: the hand-off floor collapsed ({:.0f} round trips/s, below glibc's own {:.0f} "
        "creates/s: its threads did not get a CPU each, e.g. others used them); the cache is not "
        "compared with it",
        who, floor.value.median, glibc.value.median);
  const Verdict verdict =
      compare_rounds(cache.value.samples, floor.value.samples, /*higher_is_better=*/true);
  if (verdict.clear())
    return fmt::format(
        "{}: the cache runs at {:.0f}% of the hand-off floor measured in the same run ({:.0f} "
        "threads/s vs {:.0f} round trips/s, medians; {})",
        who, 100.0 * cache.value.median / floor.value.median, cache.value.median,
        floor.value.median, verdict.basis);
  return fmt::format(
      "{}: {} between the cache and the hand-off floor measured in the same run (cache "
      "{:.0f}..{:.0f} threads/s, floor {:.0f}..{:.0f} round trips/s; {})",
      who, verdict.word(), cache.value.min, cache.value.max, floor.value.min, floor.value.max,
      verdict.reason);
}

SpawnOptions locate_spawn_tools() {
  // The same search `threadmap run --thread-cache` uses (bin/../lib, lib64, the install libdir).
  SpawnOptions tools;
  if (auto program = os::find_helper_program("threadmap-spawn")) tools.spawn_binary = *program;
  if (auto library = os::find_preload_library("cache")) tools.cache_library = *library;
  return tools;
}

namespace {

// Each run's length: 1 s (0.2 s quick), shortened (to no less than 0.1 s) when the bench has a
// share of a budget, so that the warm-up and the rounds of every variant fit in it. The rounds
// counted are at least the fewest that can give a clear verdict (the share never stops them
// before: sized for fewer, the bench overran its share to reach them, or said "too few runs").
// A run of threadmap-spawn takes more than its timed pass: a counted and a sampled pass of a
// fifth of it each (at least 0.1 s), and the program's start (~0.05 s here, more when busy).
double run_seconds(const SpawnOptions& options, std::size_t setups) {
  double seconds = options.quick ? 0.2 : 1.0;
  const int rounds = std::max(options.runs, least_clear_rounds());
  if (options.share_s > 0) {
    const double per_run = 0.9 * options.share_s / static_cast<double>(setups * (rounds + 1));
    // per_run = s + 2 max(0.1, s / 5) + 0.05, solved for s.
    const double timed = per_run <= 1.45 ? per_run - 0.25 : (per_run - 0.05) / 1.4;
    seconds = std::clamp(timed, 0.1, seconds);
  }
  return std::round(seconds * 100) / 100;
}

}  // namespace

Result<BenchResult> run_spawn(const Topology& topo, const SpawnOptions& options) {
  Result<CpuSet> usable = usable_cpus(topo);
  if (!usable) return usable.error();
  const std::string title =
      "threads created and joined per second, without and with the "
      "thread cache";
  if (std::string missing = missing_tool(options); !missing.empty())
    return unavailable_bench("spawn", title, missing);
  const std::vector<Setup> setups = spawn_setups(*usable);
  const double seconds = run_seconds(options, setups.size());
  BenchResult r =
      new_bench({"spawn", title, "threads/s", true,
                 "threads_per_second reported by threadmap-spawn over a " +
                     seconds_argument(seconds) + " s run (creators loop pthread_create + join)",
                 "158,940 -> 1,399,817 threads/s at 32 creators (8.8x), 5.9x at 1 "
                 "creator (Dice & Kogan)"},
                *usable);
  for (const Setup& setup : setups) r.variants.push_back(spawn_variant(setup));
  r.notes.push_back("the thread cache is " + options.cache_library + ", preloaded with LD_PRELOAD");

  SyscallSamples syscalls{std::vector<std::vector<double>>(setups.size()),
                          std::vector<std::string>(setups.size())};
  Status status = run_interleaved(r, options, [&](std::size_t index, bool record) {
    return run_spawn_once(options, setups[index], seconds, record, index, syscalls);
  });
  if (!status) return status.error();
  for (std::size_t i = 0; i < setups.size(); ++i) {
    if (setups[i].side == Side::kFloor) continue;
    r.variants[i].counters.push_back(syscall_counter(syscalls.per_variant[i], syscalls.missing[i]));
  }
  for (std::size_t i = 0; i + 2 < setups.size(); i += 3) {
    const Variant& glibc = r.variants[i];
    const Variant& cache = r.variants[i + 1];
    const Variant& floor = r.variants[i + 2];
    if (cache.value.median <= 0 || floor.value.median <= 0) continue;
    r.notes.push_back(cache_against_floor(glibc, cache, floor));
  }
  return r;
}

}  // namespace threadmap::experiments
