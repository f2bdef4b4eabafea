// Judging one pair from the samples of its passes: no clock, no threads, no randomness, so a
// verdict can be replayed from recorded samples (tests/unit/latency/judge_test.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "src/latency/measurement.hpp"
#include "src/latency/stats.hpp"

namespace threadmap::latency {

PairStats judge_pair(const PairSamples& in, double precision) {
  PairStats s;
  s.cpu_a = in.cpu_a;
  s.cpu_b = in.cpu_b;
  SampleSummary sum1 = summarize(in.first_ns);
  s.samples = sum1.count;
  s.round_trips_per_batch = in.round_trips_per_batch;
  s.median_ns = sum1.median;
  s.min_ns = sum1.min;
  s.p90_ns = sum1.p90;
  s.ci_low_ns = sum1.ci_low;
  s.ci_high_ns = sum1.ci_high;
  s.converged = in.first_converged;
  s.elapsed_ms = in.elapsed_ms;
  Modality modes = find_modes(in.first_ns);
  s.reported_ns = sum1.median;
  if (in.rechecked) {
    SampleSummary sum2 = summarize(in.second_ns);
    s.rechecked = true;
    s.recheck_median_ns = sum2.median;
    s.recheck_ci_low_ns = sum2.ci_low;
    s.recheck_ci_high_ns = sum2.ci_high;
    s.converged = s.converged && in.second_converged;
    // Unstable: the intervals do not overlap AND the medians differ by more than the
    // precision asked for; a 1% drift between two tight intervals is not worth a flag.
    s.unstable =
        intervals_disagree(sum1.ci_low, sum1.ci_high, sum2.ci_low, sum2.ci_high) &&
        std::fabs(sum1.median - sum2.median) > precision * std::min(sum1.median, sum2.median);
    Modality modes2 = find_modes(in.second_ns);
    if (!modes.multimodal && modes2.multimodal) modes = modes2;
    if (s.unstable) {
      // Two different answers: keep the lower (what the hardware can do when nothing
      // interferes), flag the pair and show both; never their average.
      s.reported_ns = std::min(sum1.median, sum2.median);
      if (!modes.multimodal)
        modes.modes = {std::min(sum1.median, sum2.median), std::max(sum1.median, sum2.median)};
    } else {
      std::vector<double> pooled = in.first_ns;
      pooled.insert(pooled.end(), in.second_ns.begin(), in.second_ns.end());
      s.reported_ns = summarize(std::move(pooled)).median;
    }
  }
  s.multimodal = modes.multimodal;
  if (modes.multimodal || s.unstable) s.modes_ns = modes.modes;
  return s;
}

namespace {

// |pass 1 - pass 2| / their mean, in % (the between-pass spread the pair table shows).
double apart_pct(const PairStats& p) {
  const double mean = (p.median_ns + p.recheck_median_ns) / 2;
  return mean > 0 ? std::fabs(p.median_ns - p.recheck_median_ns) / mean * 100 : 0.0;
}

// The pair behind the verdict, with its numbers: the largest move when pairs moved, else the
// widest gap between passes that was not a move (its intervals overlap), so a reader who sees
// "11.2%" in the table finds why that pair did not count.
std::string telling_pair(const std::vector<PairStats>& pairs, double precision) {
  const PairStats* moved = nullptr;
  const PairStats* noisy = nullptr;
  for (const PairStats& p : pairs) {
    if (!p.rechecked) continue;
    const PairStats*& slot = p.unstable ? moved : noisy;
    if (!slot || apart_pct(p) > apart_pct(*slot)) slot = &p;
  }
  char buffer[256];
  if (moved) {
    std::snprintf(buffer, sizeof buffer,
                  "; largest move: CPUs %d-%d, %.1f then %.1f ns (%.1f%% apart)", moved->cpu_a,
                  moved->cpu_b, moved->median_ns, moved->recheck_median_ns, apart_pct(*moved));
    return buffer;
  }
  if (noisy && apart_pct(*noisy) > precision * 100) {
    std::snprintf(buffer, sizeof buffer,
                  "; CPUs %d-%d's passes are %.1f%% apart but their 95%% intervals overlap: a "
                  "noisy pair, not a move",
                  noisy->cpu_a, noisy->cpu_b, apart_pct(*noisy));
    return buffer;
  }
  return "";
}

}  // namespace

JudgedPairs judge_pairs(std::vector<PairSamples> samples, double precision) {
  JudgedPairs judged;
  for (const PairSamples& in : samples) {
    PairStats s = judge_pair(in, precision);
    judged.unstable += s.unstable ? 1 : 0;
    judged.multimodal += s.multimodal ? 1 : 0;
    judged.not_converged += s.converged ? 0 : 1;
    judged.rechecked += s.rechecked ? 1 : 0;
    judged.pairs.push_back(std::move(s));
  }
  judged.stability = judge_stability(judged.unstable, judged.rechecked, precision);
  if (judged.stability.state != "unknown")
    judged.stability.reason += telling_pair(judged.pairs, precision);
  return judged;
}

}  // namespace threadmap::latency
