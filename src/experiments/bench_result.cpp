#include "src/experiments/bench_result.hpp"

#include <algorithm>

namespace threadmap::experiments {

Summary summarize_runs(std::vector<double> samples) {
  const latency::SampleSummary stats = latency::summarize(samples);
  Summary s;
  s.samples = std::move(samples);
  s.median = stats.median;
  s.min = stats.min;
  s.max = stats.max;
  s.spread_pct = s.median != 0 ? (s.max - s.min) / s.median * 100.0 : 0;
  return s;
}

namespace {

const Variant* baseline_of(const BenchResult& result, const Variant& v) {
  auto base = std::find_if(result.variants.begin(), result.variants.end(),
                           [&](const Variant& b) { return b.name == v.baseline; });
  return base == result.variants.end() ? nullptr : &*base;
}

}  // namespace

void compute_ratios(BenchResult& result, const VerdictOptions& options) {
  const bool busy = result.machine_state && result.machine_state->verdict == MachineVerdict::busy;
  for (Variant& v : result.variants) {
    v.ratio_to_baseline = 0;
    v.verdict_clear = false;
    v.measured_while_busy = false;
    v.comparison = {};
    v.comparison_spread_pct = v.value.spread_pct;
    if (!v.available || v.value.samples.empty()) {
      v.verdict = "not run";
      v.verdict_basis = v.available ? "no samples" : v.unavailable_reason;
      continue;
    }
    if (v.baseline.empty()) {
      v.ratio_to_baseline = 1;
      v.verdict = "baseline";
      v.verdict_basis = "the variant the others are compared with";
      continue;
    }
    const Variant* base = baseline_of(result, v);
    if (!base || !base->available || base->value.samples.empty()) {
      v.verdict = "not run";
      v.verdict_basis = "its baseline '" + v.baseline + "' did not run";
      continue;
    }
    v.comparison_spread_pct = std::max(v.value.spread_pct, base->value.spread_pct);
    if (base->value.median > 0 && v.value.median > 0)
      v.ratio_to_baseline = result.higher_is_better ? v.value.median / base->value.median
                                                    : base->value.median / v.value.median;
    v.comparison =
        compare_rounds(v.value.samples, base->value.samples, result.higher_is_better, options);
    v.verdict = v.comparison.word();
    v.verdict_clear = v.comparison.clear();
    v.verdict_basis = v.comparison.basis;
    if (!v.verdict_clear) v.verdict_basis += "; not clear: " + v.comparison.reason;
    v.measured_while_busy = v.verdict_clear && busy;
    if (v.measured_while_busy)
      v.verdict_basis += "; measured while others used these CPUs (" +
                         result.machine_state->summary +
                         "): the difference may be theirs, no advice rests on it";
  }
}

int least_clear_rounds(const VerdictOptions& options) {
  int rounds = 2;
  while (rounds < 64 && !could_be_clear(rounds, rounds, true, options.alpha)) ++rounds;
  return rounds;
}

bool verdicts_could_settle(const BenchResult& result, const VerdictOptions& options) {
  for (const Variant& v : result.variants) {
    if (!v.available || v.baseline.empty() || v.verdict_clear) continue;
    const Variant* base = baseline_of(result, v);
    if (!base || !base->available || base->value.samples.empty() || v.value.samples.empty())
      continue;
    if (compare_rounds(v.value.samples, base->value.samples, result.higher_is_better, options)
            .more_samples_could_help(options))
      return true;
  }
  return false;
}

BenchResult unavailable_bench(std::string name, std::string title, std::string reason) {
  BenchResult r;
  r.name = std::move(name);
  r.title = std::move(title);
  r.available = false;
  r.unavailable_reason = std::move(reason);
  return r;
}

}  // namespace threadmap::experiments
