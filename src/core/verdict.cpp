// The two rules of verdict.hpp and how they combine; the tests themselves are verdict_stats.
#include "src/core/verdict.hpp"

#include <algorithm>
#include <cmath>

#include "src/core/format_text.hpp"
#include "src/core/text.hpp"

namespace threadmap {
namespace {

std::string percent(double fraction) { return format_text("%.0f%%", fraction * 100); }

// How far a ratio (> 1 = better) is from 1, relative to the smaller side: 2x and 0.5x are both
// 100%.
double effect_of(double ratio) {
  return ratio > 0 ? std::fabs(ratio - 1) / std::min(ratio, 1.0) : 0;
}

// The unpaired rule's findings.
struct Unpaired {
  double ratio = 0;
  double p_value = 1;
  bool overlap = true;
  double effect = 0;
  bool clear = false;
  std::vector<std::string> failed;
  std::string basis;
};

// `level`: the significance level this rule tests at (alpha alone, alpha / 2 beside the paired
// rule).
Unpaired judge_unpaired(const std::vector<double>& candidate, const std::vector<double>& baseline,
                        bool higher_is_better, const VerdictOptions& options, double level) {
  Unpaired u;
  const MedianInterval c = median_interval(candidate);
  const MedianInterval b = median_interval(baseline);
  if (c.median > 0 && b.median > 0)
    u.ratio = higher_is_better ? c.median / b.median : b.median / c.median;
  u.p_value = mann_whitney_p(candidate, baseline);
  u.overlap = !(c.high < b.low || b.high < c.low);
  u.effect = effect_of(u.ratio);
  if (u.p_value > level) u.failed.push_back(format_text("rank test p=%.3g > %g", u.p_value, level));
  if (u.overlap) u.failed.push_back("the 95% median intervals overlap");
  if (u.effect < options.min_effect)
    u.failed.push_back(format_text("effect %s < %s", percent(u.effect).c_str(),
                                   percent(options.min_effect).c_str()));
  // With ties the normal approximation can give a p below what the exact test ever could:
  // the exact test's floor decides whether these sizes can be clear at all.
  u.clear = u.failed.empty() && u.ratio > 0 &&
            smallest_mann_whitney_p(candidate.size(), baseline.size()) <= level;
  u.basis = format_text(
      "Mann-Whitney U two-sided p=%.3g (%zu vs %zu runs), 95%% median "
      "intervals %s, effect %s",
      u.p_value, candidate.size(), baseline.size(), u.overlap ? "overlap" : "apart",
      percent(u.effect).c_str());
  return u;
}

// The paired rule on the rounds both sides have: per-round log ratios, > 0 = candidate better.
PairedVerdict judge_paired(const std::vector<double>& candidate,
                           const std::vector<double>& baseline, bool higher_is_better,
                           const VerdictOptions& options, double level) {
  PairedVerdict p;
  p.rounds = std::min(candidate.size(), baseline.size());
  std::vector<double> logs;
  for (std::size_t i = 0; i < p.rounds; ++i) {
    if (!(candidate[i] > 0) || !(baseline[i] > 0)) {
      p.reason = "a value is not above 0: per-round ratios are undefined";
      return p;
    }
    const double l = std::log(candidate[i] / baseline[i]);
    logs.push_back(higher_is_better ? l : -l);
  }
  if (p.rounds < 2) {
    p.reason = format_text("%zu round%s", p.rounds, p.rounds == 1 ? "" : "s");
    return p;
  }
  p.computed = true;
  for (double l : logs) (l > 0 ? p.candidate_won : l < 0 ? p.baseline_won : p.tied) += 1;
  p.p_value = wilcoxon_signed_rank(logs).p_value;
  p.sign_p_value = sign_test_p(p.candidate_won, p.baseline_won);
  const ShiftInterval shift = hodges_lehmann_interval(logs, level);
  p.ratio = std::exp(shift.estimate);
  if (shift.bounded) {
    p.ratio_low = std::exp(shift.low);
    p.ratio_high = std::exp(shift.high);
  }
  std::vector<std::string> failed;
  if (p.p_value > level) failed.push_back(format_text("signed-rank p=%.3g > %g", p.p_value, level));
  if (!shift.bounded)
    failed.push_back(format_text("%zu rounds give no %.0f%% interval for the ratio", p.rounds,
                                 100 * (1 - level)));
  else if (p.ratio_low <= 1 && p.ratio_high >= 1)
    failed.push_back(
        format_text("the ratio's interval %.3g-%.3g includes 1", p.ratio_low, p.ratio_high));
  if (effect_of(p.ratio) < options.min_effect)
    failed.push_back(format_text("per-round effect %s < %s", percent(effect_of(p.ratio)).c_str(),
                                 percent(options.min_effect).c_str()));
  p.clear = failed.empty() && smallest_signed_rank_p(p.rounds) <= level;
  p.reason = joined(failed);
  return p;
}

std::string paired_basis(const PairedVerdict& p, double alpha) {
  if (!p.computed) return "paired: not computed (" + p.reason + ")";
  std::string interval = p.ratio_low > 0 ? format_text("%.1f%% %.3g-%.3g", 100 * (1 - alpha),
                                                       p.ratio_low, p.ratio_high)
                                         : std::string("no interval with so few rounds");
  return format_text(
      "paired: the candidate better in %zu of %zu rounds (sign test p=%.3g), "
      "per-round ratio %.3gx (%s), Wilcoxon signed-rank p=%.3g",
      p.candidate_won, p.rounds, p.sign_p_value, p.ratio, interval.c_str(), p.p_value);
}

std::string thresholds(const VerdictOptions& options, bool paired) {
  if (!paired)
    return format_text("clear needs p <= %g, intervals apart and effect >= %s", options.alpha,
                       percent(options.min_effect).c_str());
  return format_text(
      "clear needs, by either rule at half of %g, p <= %g with the median intervals apart "
      "(unpaired) or a ratio interval without 1 (paired), and effect >= %s",
      options.alpha, options.alpha / 2, percent(options.min_effect).c_str());
}

std::string too_few_text(std::size_t n_candidate, std::size_t n_baseline, bool paired) {
  return format_text(
      "too few runs to judge (%zu vs %zu): no test can be clear with so few "
      "(the least: %s)",
      n_candidate, n_baseline, paired ? "5 rounds" : "4 vs 4 runs");
}

// The verdict from the rules' findings; `paired` is null for compare_samples.
Verdict combine(const std::vector<double>& candidate, const std::vector<double>& baseline,
                const Unpaired& u, const PairedVerdict* paired, const VerdictOptions& options) {
  Verdict v;
  v.n_candidate = candidate.size();
  v.n_baseline = baseline.size();
  v.ratio = u.ratio;
  v.p_value = u.p_value;
  v.intervals_overlap = u.overlap;
  v.unpaired_clear = u.clear;
  if (paired) v.paired = *paired;
  const bool paired_clear = paired && paired->clear;
  const bool opposite = u.clear && paired_clear && (u.ratio > 1) != (paired->ratio > 1);
  v.basis = paired ? paired_basis(*paired, options.alpha / 2) + "; unpaired: " + u.basis : u.basis;
  if ((u.clear || paired_clear) && !opposite) {
    v.decided_by = u.clear && paired_clear ? Verdict::Decider::both
                   : u.clear               ? Verdict::Decider::unpaired
                                           : Verdict::Decider::paired;
    // The ratio of the rule that decided: the medians', or the rounds' when they alone did.
    if (v.decided_by == Verdict::Decider::paired) v.ratio = paired->ratio;
    v.kind = v.ratio > 1 ? Verdict::Kind::better : Verdict::Kind::worse;
    if (paired)
      v.basis += v.decided_by == Verdict::Decider::both
                     ? std::string("; decided by both tests")
                     : "; decided by the " + v.decider_name() + " test";
    v.basis += " (" + thresholds(options, paired != nullptr) + ")";
    return v;
  }
  v.basis += " (" + thresholds(options, paired != nullptr) + ")";
  if (!could_be_clear(v.n_candidate, v.n_baseline, paired != nullptr, options.alpha)) {
    v.kind = Verdict::Kind::too_few_runs;
    v.reason = too_few_text(v.n_candidate, v.n_baseline, paired != nullptr) +
               (u.p_value < 1 ? format_text("; rank test p=%.3g", u.p_value) : std::string());
    return v;
  }
  v.kind = Verdict::Kind::no_clear_difference;
  if (opposite) {
    v.reason = "the paired and unpaired tests point opposite ways";
    return v;
  }
  v.reason =
      paired ? "unpaired: " + joined(u.failed) + "; paired: " + paired->reason : joined(u.failed);
  return v;
}

}  // namespace

std::string Verdict::word() const {
  switch (kind) {
    case Kind::better:
      return "faster";
    case Kind::worse:
      return "slower";
    case Kind::too_few_runs:
      return "too few runs to judge";
    case Kind::no_clear_difference:
      break;
  }
  return "no clear difference";
}

std::string Verdict::decider_name() const {
  switch (decided_by) {
    case Decider::unpaired:
      return "unpaired";
    case Decider::paired:
      return "paired";
    case Decider::both:
      return "both";
    case Decider::none:
      break;
  }
  return "none";
}

std::string Verdict::short_text() const {
  if (kind == Kind::too_few_runs)
    return format_text("too few runs to judge (%zu vs %zu)", n_candidate, n_baseline);
  if (!clear()) return word();
  const double factor = kind == Kind::better ? ratio : (ratio > 0 ? 1 / ratio : 0);
  return format_text("%.2fx %s", factor, word().c_str());
}

bool Verdict::more_samples_could_help(const VerdictOptions& options) const {
  if (clear()) return false;
  if (effect_of(ratio) >= options.min_effect) return true;
  return paired.computed && effect_of(paired.ratio) >= options.min_effect;
}

bool could_be_clear(std::size_t n_candidate, std::size_t n_baseline, bool paired, double alpha) {
  if (n_candidate < 2 || n_baseline < 2) return false;
  const double level = paired ? alpha / 2 : alpha;  // as compare_rounds tests
  if (smallest_mann_whitney_p(n_candidate, n_baseline) <= level) return true;
  return paired && smallest_signed_rank_p(std::min(n_candidate, n_baseline)) <= level;
}

Verdict compare_samples(const std::vector<double>& candidate, const std::vector<double>& baseline,
                        bool higher_is_better, const VerdictOptions& options) {
  const Unpaired u = judge_unpaired(candidate, baseline, higher_is_better, options, options.alpha);
  return combine(candidate, baseline, u, nullptr, options);
}

Verdict compare_rounds(const std::vector<double>& candidate, const std::vector<double>& baseline,
                       bool higher_is_better, const VerdictOptions& options) {
  // Two rules, each at half the level: together they call noise clear at most alpha of the
  // time (Bonferroni), whichever decides.
  const double level = options.alpha / 2;
  const Unpaired u = judge_unpaired(candidate, baseline, higher_is_better, options, level);
  const PairedVerdict p = judge_paired(candidate, baseline, higher_is_better, options, level);
  return combine(candidate, baseline, u, &p, options);
}

}  // namespace threadmap
