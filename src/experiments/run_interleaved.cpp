#include "src/experiments/run_interleaved.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace threadmap::experiments {
namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The state before the rounds was quiet but the look after them was busy: the bench's state is
// busy, and says when.
void later_busy_note(MachineState& state, const MachineState& later) {
  state.verdict = MachineVerdict::busy;
  state.others_busy_pct_before =
      std::max(state.others_busy_pct_before, later.others_busy_pct_before);
  state.summary =
      "busy: " + (later.summary.starts_with("busy: ") ? later.summary.substr(6) : later.summary) +
      " (seen right after the rounds; quiet just before them)";
}

void summarize(BenchResult& result, const std::vector<std::vector<double>>& samples) {
  for (std::size_t v = 0; v < result.variants.size(); ++v)
    result.variants[v].value = summarize_runs(samples[v]);
  compute_ratios(result);
}

// The rounds to run and the rule for adding more, stated in the result before any round runs.
void plan_rounds(RoundsTaken& rounds, const BenchOptions& options) {
  rounds = {};
  rounds.planned = options.runs;
  rounds.cap = std::max(options.runs, options.max_runs);
  rounds.time_factor = std::max(0.0, options.added_time_factor);
  rounds.budget = fmt::format(
      "while a verdict is unclear and more runs could settle it, interleaved rounds are added "
      "for at most {:g}x the planned rounds' time (at least {:g} s), up to {} rounds in all",
      rounds.time_factor, options.min_added_s, rounds.cap);
  rounds.share_s = std::max(0.0, options.share_s);
  if (rounds.share_s > 0)
    rounds.budget += fmt::format(
        "; within the bench's share of the report's budget, {:.1f} s: planned rounds stop when "
        "the next would not fit (after at least {}, the fewest that can give a clear verdict), "
        "added rounds get what is left",
        rounds.share_s, least_clear_rounds());
}

// Runs rounds: every available variant once per round, in order, so drift is shared by all.
struct RoundRunner {
  BenchResult& result;
  const BenchOptions& options;
  const RunOnce& once;
  std::vector<std::vector<double>> samples;

  // Round 0 is the unrecorded warm-up; `of` is the "of N" of the progress line.
  Status run(int round, const std::string& of) {
    const bool record = round > 0;
    if (options.progress)
      options.progress(result.name + (record ? ": run " + std::to_string(round) + " of " + of
                                             : std::string(": warm-up")));
    for (std::size_t v = 0; v < result.variants.size(); ++v) {
      if (!result.variants[v].available) continue;
      Result<double> sample = once(v, record);
      if (!sample)
        return sample.error().with_context(result.name + " (" + result.variants[v].label + ")");
      if (record) samples[v].push_back(*sample);
    }
    return {};
  }
};

// The planned rounds, after the warm-up that began at `bench_start`. With a share of a budget,
// a round that would not fit it (judged by the mean round so far, the warm-up counted as one)
// is not started, once at least the fewest that can be clear ran (fewer can only ever say "too
// few runs to judge"). Returns the planned rounds run.
Result<int> run_planned_rounds(RoundRunner& runner, const std::function<double()>& now,
                               double bench_start) {
  const BenchOptions& options = runner.options;
  RoundsTaken& rounds = runner.result.rounds;
  auto next_round_fits = [&](int rounds_done) {
    if (rounds.share_s <= 0) return true;
    const double spent = now() - bench_start;
    return spent + spent / (rounds_done + 1) <= rounds.share_s;
  };
  int planned_done = 0;
  const int least = least_clear_rounds();
  for (int round = 1; round <= options.runs; ++round) {
    if (round > least && !next_round_fits(round - 1)) {
      rounds.share_reached = true;
      break;
    }
    if (Status st = runner.run(round, std::to_string(options.runs)); !st) return st.error();
    planned_done = round;
  }
  return planned_done;
}

// After the planned rounds: one more round at a time while a verdict is unclear and could
// settle, each only if it fits what is left of the budget (judged by the mean round so far).
// Returns the rounds run in all; the reason it stopped goes into result.rounds.
Result<int> add_rounds(RoundRunner& runner, const std::function<double()>& now, double bench_start,
                       double planned_start, double planned_end, int planned_done) {
  BenchResult& result = runner.result;
  const BenchOptions& options = runner.options;
  RoundsTaken& rounds = result.rounds;
  double budget_s = rounds.time_factor > 0 ? std::max(rounds.time_factor * rounds.planned_s,
                                                      std::max(0.0, options.min_added_s))
                                           : 0;
  if (rounds.share_s > 0)
    budget_s = std::min(budget_s, std::max(0.0, rounds.share_s - (planned_end - bench_start)));
  rounds.budget_s = budget_s;
  int round = planned_done;
  if (rounds.share_reached) {
    rounds.stop_reason = fmt::format(
        "share of the budget reached ({:.1f} s) after {} of {} planned rounds; no round added",
        rounds.share_s, planned_done, options.runs);
    return round;
  }

  for (;;) {
    if (!verdicts_could_settle(result)) {
      rounds.stop_reason = rounds.added == 0 && round == planned_done
                               ? "no round added: every verdict is clear or more runs could not "
                                 "make it clear (effect below the minimum)"
                               : "stopped adding: every verdict is clear or more runs could not "
                                 "make it clear";
      return round;
    }
    if (round >= rounds.cap) {
      rounds.stop_reason =
          fmt::format("round cap reached ({} rounds) with a verdict unclear", rounds.cap);
      return round;
    }
    const double mean_round_s = (now() - planned_start) / round;
    if (now() - planned_end + mean_round_s > budget_s) {
      rounds.stop_reason =
          fmt::format("time budget reached ({:.1f} s added of {:.1f} s) with a verdict unclear",
                      now() - planned_end, budget_s);
      return round;
    }
    ++round;
    ++rounds.added;
    if (Status st = runner.run(round, "up to " + std::to_string(rounds.cap)); !st)
      return st.error();
    summarize(result, runner.samples);
  }
}

}  // namespace

Status run_interleaved(BenchResult& result, const BenchOptions& options, const RunOnce& once) {
  if (options.runs < 1)
    return Error::invalid("bad run count " + std::to_string(options.runs) + ": need at least 1");
  const std::function<double()> now = options.clock_s ? options.clock_s : steady_seconds;
  result.quick = options.quick;
  plan_rounds(result.rounds, options);

  MachineWatch watch;
  if (options.watch_machine) {
    auto cpus = CpuSet::parse_list(result.allowed_cpus);
    watch.start(cpus ? *cpus : CpuSet{}, options.idle_window_ms);
  }
  RoundRunner runner{result, options, once,
                     std::vector<std::vector<double>>(result.variants.size())};
  const double bench_start = now();
  if (Status st = runner.run(0, ""); !st) return st;
  const double planned_start = now();
  Result<int> planned_done = run_planned_rounds(runner, now, bench_start);
  if (!planned_done) return planned_done.error();
  const double planned_end = now();
  result.rounds.planned_s = planned_end - planned_start;
  summarize(result, runner.samples);

  Result<int> rounds_run =
      add_rounds(runner, now, bench_start, planned_start, planned_end, *planned_done);
  if (!rounds_run) return rounds_run.error();
  result.rounds.added_s = now() - planned_end;
  result.runs = *rounds_run;
  if (options.watch_machine) {
    result.machine_state = watch.finish();
    // A second look at the neighbours after the rounds: load that began during them (a build
    // next door) shows here when the window before the rounds was quiet.
    MachineWatch after;
    auto cpus = CpuSet::parse_list(result.allowed_cpus);
    after.start(cpus ? *cpus : CpuSet{}, options.idle_window_ms);
    const MachineState later = after.finish();
    if (later.busy() && !result.machine_state->busy()) {
      later_busy_note(*result.machine_state, later);
    }
    // The verdicts again, now that the machine's state is known: a clear one measured while
    // others used these CPUs is marked.
    compute_ratios(result);
  }
  return {};
}

}  // namespace threadmap::experiments
