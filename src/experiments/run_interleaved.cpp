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

void summarize(BenchResult& result, const std::vector<std::vector<double>>& samples) {
  for (std::size_t v = 0; v < result.variants.size(); ++v)
    result.variants[v].value = summarize_runs(samples[v]);
  compute_ratios(result);
}

}  // namespace

Status run_interleaved(BenchResult& result, const BenchOptions& options, const RunOnce& once) {
  if (options.runs < 1)
    return Error::invalid("bad run count " + std::to_string(options.runs) + ": need at least 1");
  const std::function<double()> now = options.clock_s ? options.clock_s : steady_seconds;
  result.quick = options.quick;
  RoundsTaken& rounds = result.rounds;
  rounds = {};
  rounds.planned = options.runs;
  rounds.cap = std::max(options.runs, options.max_runs);
  rounds.time_factor = std::max(0.0, options.added_time_factor);
  rounds.share_s = std::max(0.0, options.share_s);
  rounds.budget = fmt::format(
      "while a verdict is unclear and more runs could settle it, interleaved rounds are added "
      "for at most {:g}x the planned rounds' time (at least {:g} s), up to {} rounds in all",
      rounds.time_factor, options.min_added_s, rounds.cap);
  if (rounds.share_s > 0)
    rounds.budget += fmt::format(
        "; within the bench's share of the report's budget, {:.1f} s: planned rounds stop when "
        "the next would not fit (after at least {}), added rounds get what is left",
        rounds.share_s, std::min(3, options.runs));

  MachineWatch watch;
  if (options.watch_machine) {
    auto cpus = CpuSet::parse_list(result.allowed_cpus);
    watch.start(cpus ? *cpus : CpuSet{}, options.idle_window_ms);
  }
  std::vector<std::vector<double>> samples(result.variants.size());
  // Round 0 is the unrecorded warm-up.
  auto run_round = [&](int round, const std::string& of) -> Status {
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
  };
  const double bench_start = now();
  if (Status st = run_round(0, ""); !st) return st;
  const double planned_start = now();
  // The share's stop rule, judged by the mean round so far (the warm-up counts as one).
  auto next_round_fits = [&](int rounds_done) {
    if (rounds.share_s <= 0) return true;
    const double spent = now() - bench_start;
    return spent + spent / (rounds_done + 1) <= rounds.share_s;
  };
  int planned_done = 0;
  for (int round = 1; round <= options.runs; ++round) {
    if (round > std::min(3, options.runs) && !next_round_fits(round - 1)) {
      rounds.share_reached = true;
      break;
    }
    if (Status st = run_round(round, std::to_string(options.runs)); !st) return st;
    planned_done = round;
  }
  const double planned_end = now();
  rounds.planned_s = planned_end - planned_start;
  summarize(result, samples);

  // Added rounds: each must fit what is left of the budget, judged by the mean round so far.
  double budget_s = rounds.time_factor > 0 ? std::max(rounds.time_factor * rounds.planned_s,
                                                      std::max(0.0, options.min_added_s))
                                           : 0;
  if (rounds.share_s > 0)
    budget_s = std::min(budget_s, std::max(0.0, rounds.share_s - (planned_end - bench_start)));
  rounds.budget_s = budget_s;
  int round = planned_done;
  for (;;) {
    if (rounds.share_reached) {
      rounds.stop_reason = fmt::format(
          "share of the budget reached ({:.1f} s) after {} of {} planned rounds; no round added",
          rounds.share_s, planned_done, options.runs);
      break;
    }
    if (!verdicts_could_settle(result)) {
      rounds.stop_reason = rounds.added == 0 && round == planned_done
                               ? "no round added: every verdict is clear or more runs could not "
                                 "make it clear (effect below the minimum)"
                               : "stopped adding: every verdict is clear or more runs could not "
                                 "make it clear";
      break;
    }
    if (round >= rounds.cap) {
      rounds.stop_reason =
          fmt::format("round cap reached ({} rounds) with a verdict unclear", rounds.cap);
      break;
    }
    const double mean_round_s = (now() - planned_start) / round;
    if (now() - planned_end + mean_round_s > budget_s) {
      rounds.stop_reason =
          fmt::format("time budget reached ({:.1f} s added of {:.1f} s) with a verdict unclear",
                      now() - planned_end, budget_s);
      break;
    }
    ++round;
    ++rounds.added;
    if (Status st = run_round(round, "up to " + std::to_string(rounds.cap)); !st) return st;
    summarize(result, samples);
  }
  rounds.added_s = now() - planned_end;
  result.runs = round;
  if (options.watch_machine) result.machine_state = watch.finish();
  return {};
}

}  // namespace threadmap::experiments
