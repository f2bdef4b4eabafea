// Runs a group of threads, each pinned (or not) where a variant says, and times them together:
// every thread pins itself before it signals ready, all start at one release, and the time is
// taken from the release to the last thread's finish, so thread creation and pinning are never
// part of what is measured.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"

namespace threadmap::experiments {

/// Tells the CPU we are in a spin loop (PAUSE on x86), so an SMT sibling is not starved.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

/// Starts one thread per entry of `cpus`; thread i pins itself to cpus[i] (an empty set leaves
/// it to the OS), waits for the common release, then runs body(i). Returns the wall time in
/// seconds from the release to the end of the slowest body. Fails, after joining every thread,
/// with the first pinning error (e.g. a CPU outside the allowed set); bodies then do not run.
Result<double> run_pinned(const std::vector<CpuSet>& cpus,
                          const std::function<void(std::size_t)>& body);

/// Per-thread hooks that run on the worker thread but outside the timed part: `before(i)` after
/// pinning and before the release (open counters), `after(i)` once body(i) has finished and its
/// end time is taken (read counters). Either may be empty.
struct ThreadHooks {
  std::function<void(std::size_t)> before;
  std::function<void(std::size_t)> after;
};

/// run_pinned with hooks; `before` and `after` run only for threads whose body runs.
Result<double> run_pinned(const std::vector<CpuSet>& cpus,
                          const std::function<void(std::size_t)>& body, const ThreadHooks& hooks);

}  // namespace threadmap::experiments
