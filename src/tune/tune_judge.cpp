// tune's verdicts on the samples of its rounds (tune_run.hpp's judge): the leader, whether it
// beats os, what to recommend, and when the runs cannot decide, why and what would.
#include <algorithm>
#include <cmath>
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

bool disturbed_at(const CandidateResult& c, std::size_t round) {
  return round < c.disturbed.size() && c.disturbed[round];
}

// `c` against `base` (null or failed: no samples) on the rounds neither had disturbed: a round
// others' work disturbed never makes a verdict clear.
Verdict compare_quiet(const CandidateResult& c, const CandidateResult* base, bool higher,
                      const VerdictOptions& options) {
  const bool usable = base && !base->failed;
  const std::size_t base_n = usable ? base->samples.size() : 0;
  std::vector<double> mine, theirs;
  for (std::size_t i = 0; i < std::max(c.samples.size(), base_n); ++i) {
    if (disturbed_at(c, i) || (usable && disturbed_at(*base, i))) continue;
    if (i < c.samples.size()) mine.push_back(c.samples[i]);
    if (i < base_n) theirs.push_back(base->samples[i]);
  }
  return compare_rounds(mine, theirs, higher, options);
}

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
  std::size_t rounds = 0;
  for (const CandidateResult& c : r.candidates) {
    r.runs_kept += static_cast<int>(c.samples.size());
    r.runs_disturbed += c.disturbed_kept;
    rounds = std::max(rounds, c.samples.size());
  }
  r.rounds_measured = static_cast<int>(rounds);
  r.rounds_disturbed = 0;
  for (std::size_t i = 0; i < rounds; ++i) {
    bool any = false;
    for (const CandidateResult& c : r.candidates) any = any || disturbed_at(c, i);
    r.rounds_disturbed += any ? 1 : 0;
  }
  r.disturbed_note.clear();
  if (r.runs_kept > 0 && 2 * r.runs_disturbed > r.runs_kept)
    r.disturbed_note = "most runs were disturbed (" + std::to_string(r.runs_disturbed) + " of " +
                       std::to_string(r.runs_kept) +
                       " kept runs: others used these CPUs): rerun on a quiet machine for a "
                       "verdict";
}

// The least number of rounds with which a verdict can be clear (the paired rule's or the
// unpaired one's, whichever needs fewer).
int rounds_for_a_verdict(const VerdictOptions& options) {
  int n = 2;
  while (n < 100 && !could_be_clear(n, n, true, options.alpha)) ++n;
  return n;
}

// "--budget 50s": time for `rounds` rounds and the warm-up at the runs' measured pace with half
// again to spare, rounded up to 10 s; "a longer --budget" when no run time is known.
std::string budget_advice(const TuneResult& r, int rounds) {
  double round_s = 0;
  for (const CandidateResult& c : r.candidates) {
    if (c.failed || c.wall_s.empty()) continue;
    double sum = 0;
    for (double w : c.wall_s) sum += w;
    round_s += sum / static_cast<double>(c.wall_s.size());
  }
  if (round_s <= 0) return "rerun with a longer --budget";
  const double need = std::max(1.5 * round_s * (rounds + 1), r.budget_s + 10);
  return "rerun with --budget " + std::to_string(static_cast<long>(std::ceil(need / 10) * 10)) +
         "s";
}

// Why the runs cannot decide and what would, or leaves both empty: an interruption before every
// candidate ran, rounds too few for any verdict (the budget, or others' work disturbing them),
// or unsettled verdicts that the budget cut short.
void find_undecided(TuneResult& r, const VerdictOptions& options) {
  r.undecided.clear();
  r.to_decide.clear();
  std::string missing;
  for (const CandidateResult& c : r.candidates)
    if (!c.failed && c.samples.empty()) missing += (missing.empty() ? "" : ", ") + c.candidate.name;
  if (!missing.empty()) {
    r.undecided = (r.interrupted ? "interrupted before " : "no run of ") + missing +
                  (r.interrupted ? " ran" : " was kept") + ", so nothing is judged";
    r.to_decide = r.interrupted ? "rerun and let it finish" : budget_advice(r, 5);
    return;
  }
  if (!r.best_is_os()) return;  // a clear verdict, on undisturbed rounds
  const bool most_disturbed = 2 * r.rounds_disturbed > r.rounds_measured;
  const int needed = rounds_for_a_verdict(options);
  for (const CandidateResult& c : r.candidates) {
    if (!ranked(c) || c.candidate.is_os() || c.vs_os.clear()) continue;
    const bool too_few = c.vs_os.kind == Verdict::Kind::too_few_runs;
    const bool cut_short =
        c.vs_os.more_samples_could_help(options) && r.stopped.rfind("budget", 0) == 0;
    if (r.rounds_disturbed > 0 && (too_few || most_disturbed)) {
      const int quiet = r.rounds_measured - r.rounds_disturbed;
      r.undecided =
          (quiet == 0 ? "all " + std::to_string(r.rounds_measured) + " rounds were disturbed"
                      : std::to_string(r.rounds_disturbed) + " of " +
                            std::to_string(r.rounds_measured) + " rounds were disturbed") +
          " (others used these CPUs) and count for no verdict" +
          (quiet == 0
               ? std::string()
               : "; the " + std::to_string(quiet) +
                     (quiet == 1 ? " quiet one cannot" : " quiet ones cannot") + " decide (" +
                     c.candidate.name + " vs os: " + c.vs_os.short_text() + ")");
      r.to_decide = "rerun on a quiet machine";
      // Too few rounds even if all were quiet: the budget too.
      if (r.rounds_measured < needed) {
        const std::string budget = budget_advice(r, needed);
        if (budget.rfind("rerun with ", 0) == 0) r.to_decide += ", " + budget.substr(11);
      }
      r.disturbed_note.clear();  // said here, once
      return;
    }
    if (too_few) {
      r.undecided = "too few rounds to decide (" + std::to_string(c.vs_os.n_candidate) + " of " +
                    c.candidate.name + ", " + std::to_string(c.vs_os.n_baseline) +
                    " of os; a verdict needs at least " + std::to_string(needed) + " of each)";
      r.to_decide = budget_advice(r, needed);
      return;
    }
    if (cut_short) {
      r.undecided = "the budget ran out before " + c.candidate.name +
                    " and os could be told apart (" + c.vs_os.reason + ")";
      r.to_decide = budget_advice(r, 2 * r.rounds_measured);
      return;
    }
  }
}

// What the medians show when the runs cannot decide: no verdict in it.
std::string undecided_conclusion(const TuneResult& r) {
  std::string out = "measured so far: ";
  bool first = true;
  for (const CandidateResult& c : r.candidates) {
    if (!ranked(c)) continue;
    // Four significant digits, no exponent for the rates programs print (76013, not 7.601e+04).
    const double m = c.interval.median;
    char median[64];
    std::snprintf(median, sizeof median, std::fabs(m) >= 1e4 ? "%.0f" : "%.4g", m);
    out += (first ? "" : ", ") + c.candidate.name + " median " + median +
           (r.metric.unit().empty() ? "" : " " + r.metric.unit()) + " (" +
           std::to_string(c.samples.size()) + (c.samples.size() == 1 ? " run)" : " runs)");
    first = false;
  }
  return out + "; not a verdict";
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
  if (!r.undecided.empty()) {
    r.conclusion = undecided_conclusion(r);
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
  for (CandidateResult& c : r.candidates) {
    c.vs_os = compare_quiet(c, os_result, higher, options);
    c.vs_leader = compare_quiet(c, leader, higher, options);
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
  for (CandidateResult& c : r.candidates) c.vs_best = compare_quiet(c, best, higher, options);
  count_runs(r);
  find_undecided(r, options);
  conclude(r, os, simpler_why);
}

}  // namespace threadmap::tune
