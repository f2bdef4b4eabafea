// tune's verdicts on the samples of its rounds (tune_run.hpp's judge): the leader, whether it
// beats os, and what to recommend.
#include <cstdio>

#include "src/tune/tune_run.hpp"

namespace threadmap::tune {
namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

bool ranked(const CandidateResult& c) { return !c.failed && !c.samples.empty(); }

std::size_t os_index(const TuneResult& r) {
  for (std::size_t i = 0; i < r.candidates.size(); ++i)
    if (r.candidates[i].candidate.is_os()) return i;
  return kNoCandidate;
}

// The best median among the ranked candidates.
std::size_t find_leader(const TuneResult& r) {
  const bool higher = r.metric.higher_is_better;
  std::size_t leader = kNoCandidate;
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    const CandidateResult& c = r.candidates[i];
    if (!ranked(c)) continue;
    if (leader == kNoCandidate) {
      leader = i;
      continue;
    }
    const double m = c.interval.median, best = r.candidates[leader].interval.median;
    if (higher ? m > best : m < best) leader = i;
  }
  return leader;
}

// Among the candidates clearly better than os and not clearly worse than the leader, the one
// that applies the fewest things, when it applies a subset of what the leader applies: pinning
// that no clear difference supports is not advice. `why` gets the sentence that says so.
std::size_t simplest_equal(const TuneResult& r, std::size_t leader, std::string& why) {
  const CandidateResult& l = r.candidates[leader];
  std::size_t chosen = leader;
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    const CandidateResult& c = r.candidates[i];
    if (i == leader || !ranked(c) || c.vs_os.kind != Verdict::Kind::better) continue;
    if (c.vs_leader.clear() || !c.candidate.simpler_than(l.candidate)) continue;
    if (chosen == leader || c.candidate.parts() < r.candidates[chosen].candidate.parts())
      chosen = i;
  }
  if (chosen != leader) {
    const CandidateResult& s = r.candidates[chosen];
    why = s.candidate.name + " is recommended over " + l.candidate.name + ": " + l.candidate.name +
          " has the better median, but what it adds to " + s.candidate.name +
          " made no clear difference (" + s.vs_leader.short_text() + "; " + s.vs_leader.reason +
          ")";
  }
  return chosen;
}

void count_runs(TuneResult& r) {
  r.runs_kept = 0;
  r.runs_disturbed = 0;
  for (const CandidateResult& c : r.candidates) {
    r.runs_kept += static_cast<int>(c.samples.size());
    r.runs_disturbed += c.disturbed_kept;
  }
  r.disturbed_note.clear();
  if (r.runs_kept > 0 && 2 * r.runs_disturbed > r.runs_kept)
    r.disturbed_note = "most runs were disturbed (" + std::to_string(r.runs_disturbed) + " of " +
                       std::to_string(r.runs_kept) +
                       " kept runs: others used these CPUs): rerun on a quiet machine for a "
                       "verdict";
}

void conclude(TuneResult& r, std::size_t os, const std::string& simpler_why) {
  const CandidateResult* l = r.at(r.leader);
  if (!l) {
    r.conclusion = "no candidate ran successfully";
    return;
  }
  if (os == kNoCandidate || !ranked(r.candidates[os])) {
    r.conclusion = l->candidate.name +
                   " has the best median; the program failed without a placement, so nothing "
                   "is judged against the OS";
    return;
  }
  const CandidateResult& b = r.candidates[r.best];
  if (!b.candidate.is_os()) {
    r.conclusion = b.candidate.name + " is " + fixed(b.vs_os.ratio, 2) + "x " + b.vs_os.word() +
                   " than os (" + b.vs_os.basis + ")";
    if (!simpler_why.empty()) r.conclusion += "\n" + simpler_why;
    return;
  }
  if (l->candidate.is_os()) {
    r.conclusion = "no placement beats the OS here: os has the best median";
    // With too few rounds that is all the runs can say: the others were not judged.
    for (const CandidateResult& c : r.candidates)
      if (ranked(c) && !c.candidate.is_os() && c.vs_os.kind == Verdict::Kind::too_few_runs) {
        r.conclusion += ", and the others were not judged: " + c.vs_os.short_text() +
                        " (give tune more time for a verdict)";
        break;
      }
    return;
  }
  r.conclusion = "no placement beats the OS here: the best median (" + l->candidate.name +
                 ") is not clearly better than os: " + l->vs_os.short_text() + " (" +
                 l->vs_os.reason + "; " + l->vs_os.basis + ")";
}

}  // namespace

const CandidateResult* TuneResult::at(std::size_t index) const {
  return index < candidates.size() ? &candidates[index] : nullptr;
}

std::string TuneResult::name_of(std::size_t index) const {
  const CandidateResult* c = at(index);
  return c ? c->candidate.name : "";
}

bool TuneResult::best_is_os() const {
  const CandidateResult* c = at(best);
  return !c || c->candidate.is_os();
}

void judge(TuneResult& r, const VerdictOptions& options) {
  const bool higher = r.metric.higher_is_better;
  for (CandidateResult& c : r.candidates) c.interval = median_interval(c.samples);
  r.leader = find_leader(r);
  const std::size_t os = os_index(r);
  const std::vector<double> none;
  const CandidateResult* os_result = r.at(os);
  const std::vector<double>& os_samples =
      os_result && !os_result->failed ? os_result->samples : none;
  const CandidateResult* leader = r.at(r.leader);
  const std::vector<double>& leader_samples = leader ? leader->samples : none;
  for (CandidateResult& c : r.candidates) {
    c.vs_os = compare_rounds(c.samples, os_samples, higher, options);
    c.vs_leader = compare_rounds(c.samples, leader_samples, higher, options);
  }
  std::string simpler_why;
  r.best = os;
  if (leader && os_samples.empty()) {
    r.best = r.leader;  // nothing to judge against: the best median, said so
  } else if (leader && !leader->candidate.is_os()) {
    // The leader, or a simpler equal, when clearly better than os.
    std::size_t pick = leader->vs_os.kind == Verdict::Kind::better ? r.leader : kNoCandidate;
    if (pick != kNoCandidate) pick = simplest_equal(r, r.leader, simpler_why);
    if (pick != kNoCandidate) r.best = pick;
  }
  const CandidateResult* best = r.at(r.best);
  const std::vector<double>& best_samples = best && !best->failed ? best->samples : none;
  for (CandidateResult& c : r.candidates)
    c.vs_best = compare_rounds(c.samples, best_samples, higher, options);
  count_runs(r);
  conclude(r, os, simpler_why);
}

}  // namespace threadmap::tune
