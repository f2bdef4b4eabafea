// Whether one set of repeated measurements is better than another, by a stated test: the one
// rule every comparison threadmap prints goes through (bench variants, fleet hosts, tune
// candidates). A difference is "clear" only when all three hold:
//  1. a two-sided Mann-Whitney rank test rejects "same distribution" at alpha (exact p from the
//     rank distribution up to 20+20 samples without ties, normal approximation with tie
//     correction beyond), so 3 runs against 3 can never be clear (the smallest p there is 0.1);
//  2. the two medians' distribution-free 95% intervals do not overlap (for up to 5 samples the
//     interval is the whole range): overlapping samples are never "faster" or "slower";
//  3. the medians differ by at least the minimum effect (default 5%): a real 1% difference
//     is not worth moving threads for.
// Anything else is "no clear difference", with the reason, so the caller can add runs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace threadmap {

/// How a verdict is reached.
struct VerdictOptions {
  double alpha = 0.05;       ///< two-sided significance level of the rank test
  double min_effect = 0.05;  ///< smallest relative median difference called a difference
};

/// The outcome of comparing a candidate's samples with a baseline's.
struct Verdict {
  enum class Kind { better, worse, no_clear_difference, not_enough_samples };
  Kind kind = Kind::not_enough_samples;
  /// > 1 = the candidate is better whatever the direction: baseline/candidate medians for
  /// times, candidate/baseline for rates. 0 when either median is 0 or a side has no samples.
  double ratio = 0;
  double p_value = 1;             ///< two-sided rank-test p; 1 when not computed
  bool intervals_overlap = true;  ///< criterion 2 failed
  std::size_t n_candidate = 0;
  std::size_t n_baseline = 0;
  /// The test, N and thresholds, e.g. "Mann-Whitney U two-sided exact p=0.008 (5 vs 5 runs),
  /// 95% median intervals apart, effect >= 5%".
  std::string basis;
  /// Why it is not clear, when it is not ("p=0.10 > 0.05", "intervals overlap", "effect 2% <
  /// 5%", "only 1 run"); empty when clear.
  std::string reason;

  bool clear() const { return kind == Kind::better || kind == Kind::worse; }
  /// "faster" / "slower" / "no clear difference" (the words the bench JSON uses; a rate that
  /// is higher is "faster").
  std::string word() const;
  /// Whether more samples could still make it clear: the effect is at least the minimum and
  /// the only failing criterion is the test's power or the intervals' width.
  bool more_samples_could_help(const VerdictOptions& options = {}) const;
};

/// Compares `candidate` with `baseline` (any order of samples). `higher_is_better` gives the
/// direction of the unit (rates: true; times: false).
Verdict compare_samples(const std::vector<double>& candidate, const std::vector<double>& baseline,
                        bool higher_is_better, const VerdictOptions& options = {});

/// Two-sided Mann-Whitney U p-value of samples a against b (exact without ties when both have
/// at most 20 samples, otherwise normal approximation with tie and continuity correction).
/// 1 when either side is empty.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

/// The median and its distribution-free 95% interval (binomial order statistics; the whole
/// range below 6 samples). All zero when empty.
struct MedianInterval {
  double median = 0;
  double low = 0;
  double high = 0;
};
MedianInterval median_interval(std::vector<double> samples);

}  // namespace threadmap
