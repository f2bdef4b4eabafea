// Per-thread counters (monitor::ThreadCounters) summed over the threads of a run, and summarized
// per variant over the recorded runs into the Counter rows a BenchResult shows. Used by the
// contention and migrate experiments through run_pinned's hooks, so opening and reading the
// counters is never inside the timed part.
#pragma once

#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "src/experiments/bench_result.hpp"
#include "src/experiments/pinned_run.hpp"
#include "src/monitor/thread_counters.hpp"

namespace threadmap::experiments {

/// The events the experiments report, in this order.
enum class ThreadEvent { context_switches, cpu_migrations, l1d_read_misses, dtlb_read_misses };
constexpr std::size_t kThreadEventCount = 4;

/// JSON/table name of an event ("context_switches").
const char* thread_event_name(ThreadEvent event);

class CounterTotals {
 public:
  /// Totals for `variants` variants.
  explicit CounterTotals(std::size_t variants);

  /// Hooks for one run of `threads` threads: open each thread's counters before the release,
  /// read and add them after its body. The returned hooks refer to this object.
  ThreadHooks hooks_for_run(std::size_t threads);
  /// Keeps the run just finished as one sample of `variant` (skip it for warm-up runs).
  void record(std::size_t variant);
  /// The counter rows of `variant`: median over recorded runs, or "not supported" and why.
  std::vector<Counter> counters(std::size_t variant) const;

 private:
  std::mutex lock_;
  std::vector<std::unique_ptr<monitor::ThreadCounters>> open_;
  std::array<double, kThreadEventCount> run_sum_{};
  std::array<bool, kThreadEventCount> run_supported_{};
  std::array<std::string, kThreadEventCount> run_how_;
  struct PerVariant {
    std::array<std::vector<double>, kThreadEventCount> samples;
    std::array<bool, kThreadEventCount> supported{true, true, true, true};
    std::array<std::string, kThreadEventCount> how;
    bool recorded = false;
  };
  std::vector<PerVariant> variants_;
};

}  // namespace threadmap::experiments
