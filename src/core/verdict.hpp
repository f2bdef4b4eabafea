// Whether one set of repeated measurements is better than another, by a stated test: the one
// rule every comparison threadmap prints goes through (bench variants, the report's benches,
// tune candidates, threadmap-spawn --compare). Two rules, each with its own criteria:
//
// Unpaired (any two samples): all three hold
//  1. a two-sided Mann-Whitney rank test rejects "same distribution" at alpha (exact p from the
//     rank distribution up to 20+20 samples without ties, normal approximation with tie
//     correction beyond), so 3 runs against 3 can never be clear (the smallest p there is 0.1);
//  2. the two medians' distribution-free 95% intervals do not overlap (for up to 5 samples the
//     interval is the whole range): overlapping samples are never "faster" or "slower";
//  3. the medians differ by at least the minimum effect (default 5%): a real 1% difference
//     is not worth moving threads for.
//
// Paired (runs interleaved in rounds: sample i of each side ran in round i, next to each
// other, so a neighbour's load or the turbo of that moment hit both): all three hold
//  1. a two-sided Wilcoxon signed-rank test on the per-round log ratios rejects "no difference"
//     (exact below 50 rounds without ties);
//  2. the Hodges-Lehmann interval for the per-round ratio excludes 1 (the interval the test
//     inverts: it agrees with it whenever the exact test applies);
//  3. that ratio's estimate differs from 1 by at least the minimum effect.
//  The sign test (in how many rounds the candidate won) is reported beside it, not used.
//
// A comparison of rounds (compare_rounds) applies both rules, each at alpha / 2 (Bonferroni:
// the two together call noise clear at most alpha of the time, whichever decides; measured on
// null samples in tests/unit/core/verdict_test.cpp), is clear when either is and they do not
// point opposite ways, and says which decided. So 5 rounds is the least that can be clear (the
// unpaired rule's 5 vs 5; the paired rule alone needs 7). Drift between rounds (a build
// starting next door) widens the unpaired intervals but cancels inside a round; a few wild
// rounds move the ranks of the ratios less than the medians' intervals. Not clear is "too few
// runs to judge (N vs N)" when neither rule could have been clear with that many runs, else "no
// clear difference", with the reasons, so the caller can add runs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "src/core/verdict_stats.hpp"

namespace threadmap {

/// How a verdict is reached.
struct VerdictOptions {
  double alpha = 0.05;       ///< two-sided significance level of the rank tests
  double min_effect = 0.05;  ///< smallest relative difference called a difference
};

/// The paired rule's findings on rounds (Verdict::paired), at alpha / 2.
struct PairedVerdict {
  bool computed = false;  ///< both sides have rounds and every value is above 0
  std::size_t rounds = 0;
  std::size_t candidate_won = 0;  ///< rounds where the candidate was better
  std::size_t baseline_won = 0;
  std::size_t tied = 0;
  double p_value = 1;       ///< Wilcoxon signed-rank, two-sided
  double sign_p_value = 1;  ///< the sign test on the same rounds, for the record
  /// Per-round ratio, > 1 = the candidate better (as Verdict::ratio): its Hodges-Lehmann
  /// estimate and its interval at 1 - alpha / 2; the interval is 0..0 when unbounded (too few
  /// rounds for any interval at that level).
  double ratio = 0;
  double ratio_low = 0;
  double ratio_high = 0;
  bool clear = false;
  std::string reason;  ///< why not clear (or why not computed); empty when clear
};

/// The outcome of comparing a candidate's samples with a baseline's.
struct Verdict {
  enum class Kind { better, worse, no_clear_difference, too_few_runs };
  /// Which rule made it clear.
  enum class Decider { none, unpaired, paired, both };
  Kind kind = Kind::too_few_runs;
  Decider decided_by = Decider::none;
  /// > 1 = the candidate is better whatever the direction: baseline/candidate medians for
  /// times, candidate/baseline for rates. 0 when either median is 0 or a side has no samples.
  double ratio = 0;
  double p_value = 1;             ///< two-sided Mann-Whitney p; 1 when not computed
  bool intervals_overlap = true;  ///< unpaired criterion 2 failed
  bool unpaired_clear = false;    ///< the unpaired rule alone is clear
  std::size_t n_candidate = 0;
  std::size_t n_baseline = 0;
  PairedVerdict paired;  ///< computed by compare_rounds only
  /// The tests, N and thresholds, e.g. "paired: candidate better in 15 of 16 rounds, per-round
  /// ratio 1.45x (95% 1.30-1.62), Wilcoxon signed-rank p=0.0004; unpaired: Mann-Whitney
  /// p=0.0012 (16 vs 16 runs), 95% median intervals overlap, effect 45%; decided by the
  /// paired test".
  std::string basis;
  /// Why it is not clear, when it is not ("p=0.10 > 0.05", "intervals overlap", "effect 2% <
  /// 5%", "3 vs 3 runs: neither test can be clear with so few"); empty when clear.
  std::string reason;

  bool clear() const { return kind == Kind::better || kind == Kind::worse; }
  /// "faster" / "slower" / "no clear difference" / "too few runs to judge" (the words the
  /// bench JSON uses; a rate that is higher is "faster").
  std::string word() const;
  /// "too few runs to judge (3 vs 3)" / the word with the decider ("faster (paired)"), for a
  /// table cell.
  std::string short_text() const;
  /// "paired", "unpaired", "both" or "none".
  std::string decider_name() const;
  /// Whether more samples could still make it clear: an effect at least the minimum by either
  /// rule (the medians' or the rounds'), so that only the tests' power or the intervals' width
  /// fail (with too few runs, always so but for an effect already below the minimum).
  bool more_samples_could_help(const VerdictOptions& options = {}) const;
};

/// Compares `candidate` with `baseline` by the unpaired rule alone (samples in any order: they
/// did not run in rounds side by side). `higher_is_better` gives the direction of the unit
/// (rates: true; times: false).
Verdict compare_samples(const std::vector<double>& candidate, const std::vector<double>& baseline,
                        bool higher_is_better, const VerdictOptions& options = {});

/// Compares samples taken in interleaved rounds (candidate[i] and baseline[i] ran in round i)
/// by both rules. When one side has more rounds (an interrupted last round) the paired rule
/// uses the rounds both have.
Verdict compare_rounds(const std::vector<double>& candidate, const std::vector<double>& baseline,
                       bool higher_is_better, const VerdictOptions& options = {});

/// Whether any test could call `n_candidate` runs against `n_baseline` clear at `alpha`
/// (`paired`: the signed-rank test on min(n) rounds too). False means "too few runs to judge".
bool could_be_clear(std::size_t n_candidate, std::size_t n_baseline, bool paired, double alpha);

}  // namespace threadmap
