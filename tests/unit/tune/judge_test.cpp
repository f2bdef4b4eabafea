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
  c.candidate.options.thread_cache = cache;
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

// Three runs against three can never be clear (the exact p is at least 0.1): no verdict at all
// (not "os is best"), and it says the rounds were too few and what would decide.
TEST(TuneJudge, TooFewRunsNeverWin) {
  auto r = result({cand("os", {1.0, 1.01, 0.99}), cand("one-core", {0.2, 0.21, 0.19})});
  tune::judge(r, {});
  EXPECT_FALSE(r.decided());
  EXPECT_EQ(r.candidates[1].vs_os.short_text(), "too few runs to judge (3 vs 3)");
  EXPECT_NE(r.undecided.find("too few rounds to decide (3 of one-core, 3 of os"), std::string::npos)
      << r.undecided;
  EXPECT_EQ(r.conclusion.find("no placement beats"), std::string::npos) << r.conclusion;
  EXPECT_EQ(r.conclusion.find("best median"), std::string::npos) << r.conclusion;
}

// The budget allowed two rounds: the cache was 12x faster in both, which no rule can call clear
// with two rounds. Undecided, with the budget that would give five rounds at the runs' pace.
TEST(TuneJudge, BudgetTooShortIsUndecidedAndSaysTheBudgetThatWouldDecide) {
  auto os = cand("os", {4.34, 4.30});
  os.wall_s = {4.34, 4.30};
  auto cache = applied("os+cache", {0.36, 0.35}, {}, true);
  cache.wall_s = {0.36, 0.35};
  auto r = result({os, cache});
  r.budget_s = 20;
  r.stopped = "budget of 20.0 s spent";
  tune::judge(r, {});
  EXPECT_FALSE(r.decided());
  EXPECT_NE(r.undecided.find("too few rounds to decide (2 of os+cache, 2 of os"), std::string::npos)
      << r.undecided;
  // 4.68 s a round, five rounds and the warm-up, half again to spare: 42.1 s, so 50 s.
  EXPECT_EQ(r.to_decide, "rerun with --budget 50s");
  EXPECT_EQ(r.conclusion.find("no placement beats"), std::string::npos) << r.conclusion;
}

// Ctrl-C after the os runs only: nothing is judged, and os is not "the best median".
TEST(TuneJudge, InterruptedBeforeEveryCandidateRanIsUndecided) {
  auto r = result({cand("os", {1.0, 1.01}), applied("os+cache", {}, {}, true)});
  r.interrupted = true;
  tune::judge(r, {});
  EXPECT_FALSE(r.decided());
  EXPECT_EQ(r.undecided, "interrupted before os+cache ran, so nothing is judged");
  EXPECT_EQ(r.to_decide, "rerun and let it finish");
  EXPECT_EQ(r.conclusion.find("has the best median"), std::string::npos) << r.conclusion;
}

// Under load the cache looked 1.4x slower in the six disturbed rounds; the two quiet rounds show
// no difference. Disturbed rounds never make a verdict clear: undecided, rerun on a quiet machine.
TEST(TuneJudge, DisturbedRoundsNeverMakeAVerdictClear) {
  auto os = cand("os", {1.0, 1.0, 1.01, 0.99, 1.0, 1.02, 1.0, 0.98});
  auto cache = applied("os+cache", {1.4, 1.42, 1.39, 1.41, 1.43, 1.4, 1.0, 0.99}, {}, true);
  cache.disturbed = {true, true, true, true, true, true, false, false};
  cache.disturbed_kept = 6;
  auto r = result({os, cache});
  tune::judge(r, {});
  EXPECT_FALSE(r.candidates[1].vs_os.clear()) << r.candidates[1].vs_os.basis;
  EXPECT_EQ(r.candidates[1].vs_os.n_candidate, 2u);
  EXPECT_FALSE(r.decided());
  EXPECT_EQ(r.rounds_disturbed, 6);
  EXPECT_NE(r.undecided.find("6 of 8 rounds were disturbed"), std::string::npos) << r.undecided;
  EXPECT_EQ(r.to_decide, "rerun on a quiet machine");
  // The same samples, none disturbed: the cache is clearly slower and that is a verdict.
  r.candidates[1].disturbed.clear();
  r.candidates[1].disturbed_kept = 0;
  tune::judge(r, {});
  EXPECT_TRUE(r.decided()) << r.undecided;
  EXPECT_EQ(r.candidates[1].vs_os.word(), "slower");
}

// Both rules decided: the basis says "decided by both tests" (not "by the both tests").
TEST(TuneJudge, BothRulesDecidingReadsAsEnglish) {
  auto r = result({cand("os", {1.00, 1.02, 0.98, 1.01, 0.99, 1.03, 1.0, 1.01}),
                   cand("one-core", {0.20, 0.21, 0.19, 0.22, 0.20, 0.21, 0.2, 0.2})});
  tune::judge(r, {});
  ASSERT_EQ(r.candidates[1].vs_os.decided_by, Verdict::Decider::both) << r.conclusion;
  EXPECT_NE(r.conclusion.find("decided by both tests"), std::string::npos) << r.conclusion;
  EXPECT_EQ(r.conclusion.find("the both"), std::string::npos) << r.conclusion;
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
