// tune's terminal report: every line within 120 columns on the widest realistic table (every
// default candidate with the thread cache, verdicts of each kind, disturbed runs), the "vs best"
// column only when it says something "vs os" does not, the state the verdicts were reached in,
// and the decider of each clear verdict in the JSON.
#include "src/render/tune_view.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace threadmap {
namespace {

tune::CandidateResult cand(const std::string& name, std::vector<double> samples,
                           std::vector<int> order, bool cache) {
  tune::CandidateResult c;
  c.candidate.name = name;
  if (name == tune::kOsCandidate) c.candidate.kind = tune::Candidate::Kind::os;
  c.candidate.order = std::move(order);
  if (!c.candidate.order.empty()) {
    c.candidate.options.cpus = "0-1";
    c.candidate.options.policy = "compact";
  }
  c.candidate.options.thread_cache = cache;
  c.candidate.options.command = {"./prog", "10000"};
  c.samples = std::move(samples);
  c.machine_state.verdict = MachineVerdict::busy;
  c.machine_state.summary = "busy: others used 63% of CPUs 0-1 just before";
  c.disturbed_kept = static_cast<int>(c.samples.size());
  c.repeated = 1;
  return c;
}

std::size_t widest_line(const std::string& text) {
  std::istringstream in(text);
  std::size_t widest = 0;
  for (std::string line; std::getline(in, line);) widest = std::max(widest, line.size());
  return widest;
}

tune::TuneResult wide_result() {
  tune::TuneResult r;
  const std::vector<double> slow = {1.01, 1.02, 0.98, 1.0, 0.99, 1.03, 1.0, 1.01};
  const std::vector<double> fast = {0.51, 0.52, 0.49, 0.5, 0.495, 0.505, 0.5, 0.51};
  for (bool cache : {false, true})
    for (const char* base : {"os", "compact", "core-per-thread", "one-core", "one-node"}) {
      std::string name = std::string(base) + (cache ? "+cache" : "");
      std::vector<int> order;
      if (std::string(base) != "os") order = {0, 1};
      r.candidates.push_back(cand(name, cache ? fast : slow, order, cache));
    }
  r.candidates[2].samples = {1.0, 1.5};  // too few runs against the others
  r.candidates[2].disturbed_kept = 2;
  r.candidates[3].failed = true;
  r.candidates[3].failure = "exit status 3 on run 2; last output: boom";
  r.budget_s = 60;
  r.rounds = 6;
  r.stopped = "verdicts settled (more runs could not change them)";
  r.machine_state = r.candidates[0].machine_state;
  tune::judge(r, {});
  return r;
}

TEST(TuneView, TableFitsIn120Columns) {
  tune::TuneResult r = wide_result();
  ASSERT_FALSE(r.best_is_os()) << r.conclusion;
  const std::string text = render::tune_text(r, "");
  // The conclusion is prose (its basis names both tests): every other line fits.
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const bool prose = line.find("(paired:") != std::string::npos ||
                       line.find("recommended over") != std::string::npos;
    if (!prose) {
      EXPECT_LE(line.size(), 120u) << line;
    }
  }
  EXPECT_NE(text.find("vs best"), std::string::npos);
  EXPECT_NE(text.find("too few runs (2 vs 8)"), std::string::npos) << text;
  EXPECT_NE(text.find("rerun on a quiet machine for a verdict"), std::string::npos) << text;
  EXPECT_NE(text.find("  one-core+cache: --cpus 0-1 --policy compact --thread-cache"),
            std::string::npos)
      << text;
}

TEST(TuneView, NoBestColumnWhenOsIsBest) {
  tune::TuneResult r;
  r.candidates.push_back(cand("os", {1.0, 1.01, 0.99, 1.02, 0.98}, {}, false));
  r.candidates.push_back(cand("compact", {1.0, 1.02, 0.99, 1.01, 0.98}, {0, 1}, false));
  tune::judge(r, {});
  ASSERT_TRUE(r.best_is_os());
  const std::string text = render::tune_text(r, "");
  EXPECT_EQ(text.find("vs best"), std::string::npos) << text;
  EXPECT_NE(text.find("no placement beats the OS here"), std::string::npos);
  EXPECT_LE(widest_line(text.substr(0, text.find("best: "))), 120u) << text;
}

// Two rounds, the cache 12x faster in both: no rule can decide with two. The headline says so
// and what would decide it; nothing reads "best: os" or "no placement beats the OS", and the
// JSON has no best.
TEST(TuneView, UndecidedHeadlineNamesWhatWouldDecide) {
  tune::TuneResult r;
  r.candidates.push_back(cand("os", {4.34, 4.30}, {}, false));
  r.candidates.push_back(cand("os+cache", {0.36, 0.35}, {}, true));
  for (auto& c : r.candidates) {
    c.wall_s = c.samples;
    c.disturbed_kept = 0;
    c.machine_state.verdict = MachineVerdict::quiet;
  }
  r.budget_s = 20;
  r.rounds = 2;
  r.stopped = "budget of 20.0 s spent";
  tune::judge(r, {});
  const std::string text = render::tune_text(r, "");
  EXPECT_EQ(text.find("best: os"), std::string::npos) << text;
  EXPECT_EQ(text.find("no placement beats"), std::string::npos) << text;
  EXPECT_EQ(text.find("os *"), std::string::npos) << text;
  EXPECT_NE(text.find("undecided: too few rounds to decide (2 of os+cache, 2 of os; a verdict "
                      "needs at least 5 of each)\nto decide: rerun with --budget 50s\n"),
            std::string::npos)
      << text;
  nlohmann::json j = render::tune_json(r, "");
  EXPECT_TRUE(j["best"].is_null());
  EXPECT_FALSE(j["decided"].get<bool>());
  EXPECT_EQ(j["to_decide"], "rerun with --budget 50s");
}

TEST(TuneView, JsonSaysWhichRuleDecided) {
  tune::TuneResult r = wide_result();
  nlohmann::json j = render::tune_json(r, "");
  const nlohmann::json& cached = j["candidates"][5];  // os+cache, 2x faster in every round
  ASSERT_EQ(cached["name"], "os+cache");
  EXPECT_EQ(cached["verdict_vs_os"]["word"], "faster");
  EXPECT_EQ(cached["verdict_vs_os"]["decided_by"], "both");
  EXPECT_TRUE(cached["verdict_vs_os"]["paired"]["clear"].get<bool>());
  EXPECT_EQ(cached["verdict_vs_os"]["paired"]["candidate_better_rounds"], 8);
  EXPECT_EQ(j["runs_disturbed"], j["runs_kept"]);
  EXPECT_FALSE(j["disturbed_note"].get<std::string>().empty());
  // The simplest candidate as good as the leader: the cache alone, no pinning.
  EXPECT_EQ(j["best"], "os+cache");
}

}  // namespace
}  // namespace threadmap
