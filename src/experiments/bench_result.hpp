// What every seed experiment returns: one BenchResult holding its variants side by side (OS
// placement vs pinned ones, with vs without the thread cache, ...), each summarized over N runs
// and compared with the variant named as its baseline. Rendered by src/render/bench_* as a
// table and as JSON (schema "threadmap.bench/1", see docs/bench-and-report.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/core/machine_state.hpp"
#include "src/core/process_binding.hpp"
#include "src/core/verdict.hpp"
#include "src/latency/stats.hpp"
#include "threadmap/cpuset.hpp"

namespace threadmap::experiments {

/// Statistics over the repeated runs of one variant, in the bench's unit.
struct Summary {
  std::vector<double> samples;  ///< one value per run, in run order
  double median = 0;            ///< median of samples (mean of the middle two when even)
  double min = 0;
  double max = 0;
  double spread_pct = 0;  ///< (max - min) / median * 100: how much the runs disagreed
};

/// Median, min, max and spread of `samples` (the statistics are latency::summarize's, the one
/// sample-statistics function of the project); all zero when empty.
Summary summarize_runs(std::vector<double> samples);

/// Where one thread of a variant was put. An empty set means "left to the OS scheduler".
struct ThreadPlacement {
  std::string thread;  ///< role of the thread ("pair A thread 1", "creator")
  CpuSet cpus;         ///< the CPUs it was pinned to; empty = not pinned
};

/// A secondary measurement of a variant (context switches, migrations, cache misses).
struct Counter {
  std::string name;        ///< "context_switches", "cpu_migrations", "l1d_read_misses", ...
  std::string unit;        ///< "count per run"
  bool supported = false;  ///< false when the machine or kernel cannot count it
  double median = 0;       ///< median over runs (only when supported)
  std::string how;         ///< how it was obtained ("perf_event_open software counter, ...")
  std::string reason;      ///< why it is not supported (only when !supported)
};

/// One way of running the experiment (a placement, or with/without the thread cache).
struct Variant {
  std::string name;       ///< short id used in JSON and as a baseline reference ("os")
  std::string label;      ///< what a person reads in the table ("OS placement")
  std::string placement;  ///< one line: what was pinned where ("A: CPU 0+0, B: CPU 1+1")
  std::vector<ThreadPlacement> threads;
  std::string baseline;   ///< name of the variant this one is compared with; "" = a baseline
  bool available = true;  ///< false when it cannot run here (no SMT, tool missing, ...)
  std::string unavailable_reason;
  Summary value;  ///< the measured values, in `unit`
  /// The unit of `value` when it is not BenchResult::unit ("" = the bench's): a reference
  /// measured beside the variants in another quantity (spawn's hand-off floor: round trips/s).
  std::string unit;
  /// How much better than the baseline, >1 = better whatever the unit's direction:
  /// baseline/this for times, this/baseline for rates. 0 when there is nothing to compare.
  double ratio_to_baseline = 0;
  /// What the comparison with the baseline concludes, by the stated rule of
  /// threadmap::compare_rounds (its runs are interleaved in rounds with the baseline's, so the
  /// paired rule applies beside the unpaired one): "faster", "slower", "no clear difference",
  /// "too few runs to judge"; "baseline" for a baseline; "not run" when this variant (or its
  /// baseline) did not run. Only "faster" and "slower" may be coloured, and recommended from
  /// only when not measured_while_busy.
  std::string verdict = "not run";
  /// The tests, N and thresholds behind `verdict`, which rule decided, plus why it is not
  /// clear when it is not.
  std::string verdict_basis;
  bool verdict_clear = false;  ///< verdict is "faster" or "slower"
  /// The whole comparison (both rules' findings); kind too_few_runs with no samples when there
  /// was nothing to compare.
  Verdict comparison;
  /// A clear verdict measured while others used the measured CPUs (the bench's machine state
  /// was busy): it may be the neighbours that made the difference, so the row says so and no
  /// advice rests on it.
  bool measured_while_busy = false;
  /// The larger spread of this variant's and its baseline's samples: the noise an unclear
  /// verdict is lost in ("no clear difference (spread 309%)").
  double comparison_spread_pct = 0;
  std::vector<Counter> counters;
};

/// How many rounds were run and why the runner stopped adding rounds.
struct RoundsTaken {
  int planned = 0;         ///< the rounds asked for (--runs)
  int added = 0;           ///< interleaved rounds added because a verdict was unclear
  int cap = 0;             ///< the most rounds the runner would run in all
  double time_factor = 0;  ///< added rounds may take at most this times the planned rounds' time
  double budget_s = 0;     ///< the added rounds' time budget that resulted
  double planned_s = 0;    ///< wall time of the planned rounds
  double added_s = 0;      ///< wall time of the added rounds
  double share_s = 0;      ///< the bench's share of a stated budget (0: none), warm-up included
  bool share_reached = false;  ///< planned rounds were cut because the share was spent
  std::string budget;          ///< the rule, in words
  std::string stop_reason;     ///< "every verdict is clear", "time budget reached", ...
};

/// One experiment's complete outcome.
struct BenchResult {
  std::string name;   ///< "contention", "pingpong", "smt", "migrate", "spawn"
  std::string title;  ///< one line saying what is measured
  std::string unit;   ///< unit of Variant::value ("ms", "op/s", "threads/s")
  bool higher_is_better = false;
  std::string how_measured;  ///< what one sample is, e.g. "wall time from release to last finish"
  int runs = 0;              ///< samples per variant (the median is over these), added ones too
  RoundsTaken rounds;        ///< planned and added rounds, and the budget for adding them
  bool quick = false;        ///< short mode (smaller work per run)
  std::string published;     ///< the published result this reproduces
  bool available = true;     ///< false when the whole bench cannot run here
  std::string unavailable_reason;
  std::string allowed_cpus;  ///< CPUs this process could use, kernel list syntax
  std::vector<Variant> variants;
  std::vector<std::string> notes;  ///< caveats about this machine ("only one pair of CPUs")
  /// The machine's state around the rounds (load, steal, guest); absent when not watched.
  std::optional<MachineState> machine_state;
  /// This process's binding against its cgroup (run_bench sets it on this machine; absent in
  /// the report, which says it once for every part).
  std::optional<ProcessBinding> binding;
};

/// Fills Variant::ratio_to_baseline for every available variant whose baseline is available,
/// and every variant's verdict, verdict_basis, comparison and comparison_spread_pct
/// (compare_rounds of its samples against its baseline's, round by round, in the bench's
/// direction), and measured_while_busy from result.machine_state.
void compute_ratios(BenchResult& result, const VerdictOptions& options = {});

/// The fewest interleaved rounds whose verdict can be clear at all at `options.alpha` (4: the
/// unpaired test's 4 vs 4); fewer give "too few runs to judge".
int least_clear_rounds(const VerdictOptions& options = {});

/// Whether adding rounds could still settle a verdict: some variant that ran against a baseline
/// that ran is unclear, and its effect is large enough that more samples could make it clear.
bool verdicts_could_settle(const BenchResult& result, const VerdictOptions& options = {});

/// A BenchResult with only its identity and `available = false` and the reason.
BenchResult unavailable_bench(std::string name, std::string title, std::string reason);

}  // namespace threadmap::experiments
