// Judging samples: the leader wins only when it is clearly better than no placement; a tie or a
// lone candidate leaves os; a failed candidate is never the leader whatever its samples; the
// rounds are paired; pinning that makes no clear difference is not recommended; most runs
// disturbed says so.
#include <gtest/gtest.h>

#include "src/tune/tune_run.hpp"

using namespace threadmap;

namespace {

tune::CandidateResult cand(const std::string& name, std::vector<double> samples) {
  tune::CandidateResult c;
  c.candidate.name = name;
  if (name == tune::kOsCandidate) c.candidate.kind = tune::Candidate::Kind::os;
  c.samples = std::move(samples);
  return c;
}

// A candidate that pins (a CPU order) and/or uses the thread cache.
tune::CandidateResult applied(const std::string& name, std::vector<double> samples,
                              std::vector<int> order, bool cache) {
  tune::CandidateResult c = cand(name, std::move(samples));
  c.candidate.order = std::move(order);
  c.candidate.request.thread_cache = cache;
  return c;
}

tune::TuneResult result(std::vector<tune::CandidateResult> cs) {
  tune::TuneResult r;
  r.candidates = std::move(cs);
  return r;
}

}  // namespace

TEST(TuneJudge, ClearlyFasterCandidateIsBest) {
  auto r = result({cand("os", {1.00, 1.02, 0.98, 1.01, 0.99, 1.03}),
                   cand("one-core", {0.20, 0.21, 0.19, 0.22, 0.20, 0.21}),
                   cand("compact", {1.5, 1.6, 1.4, 1.55, 1.45, 1.5})});
  tune::judge(r, {});
  EXPECT_EQ(r.name_of(r.best), "one-core");
  EXPECT_FALSE(r.best_is_os());
  EXPECT_EQ(r.candidates[1].vs_os.word(), "faster");
  EXPECT_EQ(r.candidates[2].vs_best.word(), "slower");
  EXPECT_NE(r.conclusion.find("one-core"), std::string::npos);
  EXPECT_NE(r.conclusion.find("Mann-Whitney"), std::string::npos);
  EXPECT_NE(r.conclusion.find("signed-rank"), std::string::npos);
}

TEST(TuneJudge, NoClearDifferenceLeavesOs) {
  auto r = result({cand("os", {1.00, 1.02, 0.98, 1.01, 0.99, 1.03}),
                   cand("compact", {0.99, 1.01, 0.98, 1.02, 1.00, 0.97})});
  tune::judge(r, {});
  EXPECT_EQ(r.name_of(r.leader), "compact");
  EXPECT_TRUE(r.best_is_os());
  EXPECT_EQ(r.candidates[1].vs_os.word(), "no clear difference");
  EXPECT_NE(r.conclusion.find("no placement beats the OS here"), std::string::npos);
}

// Three runs against three can never be clear (the exact p is at least 0.1): still os, and the
// verdict says the runs were too few rather than "no clear difference".
TEST(TuneJudge, TooFewRunsNeverWin) {
  auto r = result({cand("os", {1.0, 1.01, 0.99}), cand("one-core", {0.2, 0.21, 0.19})});
  tune::judge(r, {});
  EXPECT_TRUE(r.best_is_os());
  EXPECT_EQ(r.candidates[1].vs_os.short_text(), "too few runs to judge (3 vs 3)");
  EXPECT_NE(r.conclusion.find("too few runs to judge (3 vs 3)"), std::string::npos) << r.conclusion;
}

TEST(TuneJudge, FailedCandidateIsNeverRanked) {
  auto failed = cand("one-core", {0.1, 0.1, 0.1, 0.1, 0.1, 0.1});
  failed.failed = true;
  auto r = result({cand("os", {1.00, 1.02, 0.98, 1.01, 0.99, 1.03}), failed});
  tune::judge(r, {});
  EXPECT_EQ(r.name_of(r.leader), "os");
  EXPECT_TRUE(r.best_is_os());
}

// A printed rate: higher is better, so the larger numbers win.
TEST(TuneJudge, HigherIsBetterForRates) {
  auto r = result(
      {cand("os", {100, 102, 98, 101, 99, 103}), cand("scatter", {200, 210, 190, 205, 195, 200})});
  r.metric.kind = tune::Metric::Kind::regex;
  r.metric.higher_is_better = true;
  tune::judge(r, {});
  EXPECT_EQ(r.name_of(r.best), "scatter");
}

// The load drifts from round to round, so the medians' intervals overlap; the cache was faster
// in 15 of 16 of the rounds: the paired rule decides, and says so.
TEST(TuneJudge, RoundsArePaired) {
  std::vector<double> os, cache;
  for (int round = 0; round < 16; ++round) {
    const double load = 1 + 3.0 * ((round * 7) % 16) / 15;
    os.push_back(load);
    cache.push_back(round == 3 ? 1.2 * load : 0.55 * load);
  }
  auto r = result({cand("os", os), applied("os+cache", cache, {}, true)});
  tune::judge(r, {});
  EXPECT_EQ(r.name_of(r.best), "os+cache") << r.conclusion;
  EXPECT_EQ(r.candidates[1].vs_os.decided_by, Verdict::Decider::paired);
  EXPECT_NE(r.conclusion.find("15 of 16 rounds"), std::string::npos) << r.conclusion;
}

// one-core+cache has the better median but is indistinguishable from os+cache: the pinning it
// adds is not advice.
TEST(TuneJudge, PinningThatMakesNoClearDifferenceIsNotRecommended) {
  auto r = result({cand("os", {1.00, 1.02, 0.98, 1.01, 0.99, 1.03}),
                   applied("os+cache", {0.142, 0.150, 0.139, 0.147, 0.144, 0.151}, {}, true),
                   applied("one-core+cache", {0.141, 0.149, 0.140, 0.146, 0.143, 0.150}, {0}, true),
                   applied("one-core", {0.9, 0.92, 0.91, 0.93, 0.9, 0.92}, {0}, false)});
  tune::judge(r, {});
  EXPECT_EQ(r.name_of(r.leader), "one-core+cache");
  EXPECT_EQ(r.name_of(r.best), "os+cache") << r.conclusion;
  EXPECT_NE(r.conclusion.find("os+cache is recommended over one-core+cache"), std::string::npos)
      << r.conclusion;
}

// A simpler candidate that is clearly worse than the leader does not replace it.
TEST(TuneJudge, ClearlyBetterPinningStaysBest) {
  auto r = result({cand("os", {1.00, 1.02, 0.98, 1.01, 0.99, 1.03}),
                   applied("os+cache", {0.50, 0.51, 0.49, 0.52, 0.50, 0.51}, {}, true),
                   applied("one-core+cache", {0.14, 0.15, 0.14, 0.146, 0.143, 0.15}, {0}, true)});
  tune::judge(r, {});
  EXPECT_EQ(r.name_of(r.best), "one-core+cache");
}

TEST(TuneJudge, MostRunsDisturbedSaysRerunOnAQuietMachine) {
  auto r = result({cand("os", {1.00, 1.02, 0.98, 1.01, 0.99}),
                   cand("compact", {0.99, 1.01, 0.98, 1.02, 1.00})});
  r.candidates[0].disturbed_kept = 4;
  r.candidates[1].disturbed_kept = 3;
  tune::judge(r, {});
  EXPECT_EQ(r.runs_kept, 10);
  EXPECT_EQ(r.runs_disturbed, 7);
  EXPECT_NE(r.disturbed_note.find("rerun on a quiet machine for a verdict"), std::string::npos);
  r.candidates[0].disturbed_kept = 1;
  r.candidates[1].disturbed_kept = 0;
  tune::judge(r, {});
  EXPECT_TRUE(r.disturbed_note.empty());
}
