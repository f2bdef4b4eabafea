// Judging samples: the leader wins only when it is clearly better than no placement; a tie or a
// lone candidate leaves "os"; a failed candidate is never the leader whatever its samples.
#include <gtest/gtest.h>

#include "src/tune/tune_run.hpp"

using namespace threadmap;

namespace {

tune::CandidateResult cand(const std::string& name, std::vector<double> samples) {
  tune::CandidateResult c;
  c.candidate.name = name;
  c.samples = std::move(samples);
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
  EXPECT_EQ(r.best, "one-core");
  EXPECT_EQ(r.candidates[1].vs_os.word(), "faster");
  EXPECT_EQ(r.candidates[2].vs_best.word(), "slower");
  EXPECT_NE(r.conclusion.find("one-core"), std::string::npos);
  EXPECT_NE(r.conclusion.find("Mann-Whitney"), std::string::npos);
}

TEST(TuneJudge, NoClearDifferenceLeavesOs) {
  auto r = result({cand("os", {1.00, 1.02, 0.98, 1.01, 0.99, 1.03}),
                   cand("compact", {0.99, 1.01, 0.98, 1.02, 1.00, 0.97})});
  tune::judge(r, {});
  EXPECT_EQ(r.leader, "compact");
  EXPECT_EQ(r.best, "os");
  EXPECT_EQ(r.candidates[1].vs_os.word(), "no clear difference");
  EXPECT_NE(r.conclusion.find("no placement beats the OS here"), std::string::npos);
}

// Three runs against three can never be clear (the exact p is at least 0.1): still "os".
TEST(TuneJudge, TooFewRunsNeverWin) {
  auto r = result({cand("os", {1.0, 1.01, 0.99}), cand("one-core", {0.2, 0.21, 0.19})});
  tune::judge(r, {});
  EXPECT_EQ(r.best, "os");
}

TEST(TuneJudge, FailedCandidateIsNeverRanked) {
  auto failed = cand("one-core", {0.1, 0.1, 0.1, 0.1, 0.1, 0.1});
  failed.failed = true;
  auto r = result({cand("os", {1.00, 1.02, 0.98, 1.01, 0.99, 1.03}), failed});
  tune::judge(r, {});
  EXPECT_EQ(r.leader, "os");
  EXPECT_EQ(r.best, "os");
}

// A printed rate: higher is better, so the larger numbers win.
TEST(TuneJudge, HigherIsBetterForRates) {
  auto r = result(
      {cand("os", {100, 102, 98, 101, 99, 103}), cand("scatter", {200, 210, 190, 205, 195, 200})});
  r.metric.kind = tune::Metric::Kind::regex;
  r.metric.higher_is_better = true;
  tune::judge(r, {});
  EXPECT_EQ(r.best, "scatter");
}
