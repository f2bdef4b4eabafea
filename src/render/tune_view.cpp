#include "src/render/tune_view.hpp"

#include <fmt/format.h>

#include <cmath>

#include "src/render/machine_state_json.hpp"
#include "src/render/safe_text.hpp"
#include "src/render/text_table.hpp"

namespace threadmap::render {
namespace {

// Four significant digits, without an exponent for the rates programs print (145100, not
// 1.451e+05).
std::string plain(double v) {
  const double a = std::fabs(v);
  if (a < 1e4 || a >= 1e10) return fmt::format("{:.4g}", v);
  const double step = std::pow(10, std::floor(std::log10(a)) - 3);
  return fmt::format("{:.0f}", std::round(v / step) * step);
}

std::string number(double v, const std::string& unit) {
  return plain(v) + (unit.empty() ? "" : " " + unit);
}

// "4.90x faster (u+p)" / "no clear difference" / "too few runs (3 vs 3)" / "-" for itself. The
// decider is a short mark explained under the table; the reasons are in the conclusion and the
// JSON (the table stays within 120 columns).
std::string verdict_cell(const Verdict& v, bool self) {
  if (self) return "-";
  if (v.kind == Verdict::Kind::too_few_runs)
    return fmt::format("too few runs ({} vs {})", v.n_candidate, v.n_baseline);
  if (!v.clear()) return v.short_text();
  const char* mark = v.decided_by == Verdict::Decider::both       ? "u+p"
                     : v.decided_by == Verdict::Decider::paired   ? "p"
                     : v.decided_by == Verdict::Decider::unpaired ? "u"
                                                                  : "?";
  return v.short_text() + " (" + mark + ")";
}

// "0.5237 s (0.1804-0.8374)": the median and its 95% interval.
std::string median_cell(const tune::CandidateResult& c, const std::string& unit) {
  return number(c.interval.median, unit) + " (" + plain(c.interval.low) + "-" +
         plain(c.interval.high) + ")";
}

// "quiet", "busy 5/5" (runs kept while others used these CPUs), ", 1 rerun" (dropped and run
// again).
std::string machine_cell(const tune::CandidateResult& c) {
  std::string out = machine_verdict_name(c.machine_state.verdict);
  if (c.disturbed_kept > 0) out += fmt::format(" {}/{}", c.disturbed_kept, c.samples.size());
  if (c.repeated > 0) out += fmt::format(", {} rerun", c.repeated);
  return out;
}

// What the run line adds to the command: "--cpus 0-1 --policy compact", "--ranks auto --policy
// scatter", "nothing" / "the launcher alone" for os.
std::string how_text(const tune::CandidateResult& c) {
  if (c.candidate.is_os()) return c.candidate.launcher.empty() ? "nothing" : "the launcher alone";
  std::vector<std::string> args = apply::run_arguments(c.candidate.options);
  std::string out;
  for (std::size_t i = 1; i < args.size() && args[i] != "--"; ++i)
    out += (out.empty() ? "" : " ") + args[i];
  return out.empty() ? "nothing" : out;
}

nlohmann::json paired_json(const PairedVerdict& p) {
  if (!p.computed) return {{"computed", false}, {"reason", p.reason}};
  return {{"computed", true},
          {"rounds", p.rounds},
          {"candidate_better_rounds", p.candidate_won},
          {"baseline_better_rounds", p.baseline_won},
          {"tied_rounds", p.tied},
          {"test", "Wilcoxon signed-rank on per-round log ratios, two-sided"},
          {"p_value", p.p_value},
          {"sign_test_p_value", p.sign_p_value},
          {"ratio", p.ratio},
          {"ratio_interval",
           p.ratio_low > 0 ? nlohmann::json{p.ratio_low, p.ratio_high} : nlohmann::json(nullptr)},
          {"ratio_interval_level", 0.975},
          {"clear", p.clear},
          {"reason", p.reason}};
}

}  // namespace

nlohmann::json verdict_json(const Verdict& v) {
  return {{"word", v.word()},
          {"ratio", v.ratio},
          {"decided_by", v.decider_name()},
          {"p_value", v.p_value},
          {"intervals_overlap", v.intervals_overlap},
          {"unpaired_clear", v.unpaired_clear},
          {"paired", paired_json(v.paired)},
          {"basis", v.basis},
          {"reason", v.reason},
          {"n_candidate", v.n_candidate},
          {"n_baseline", v.n_baseline}};
}

std::string tune_text(const tune::TuneResult& r, const std::string& reproduce) {
  const std::string unit = r.metric.unit();
  std::string out = "metric: " + r.metric.describe() + "\n";
  for (const auto& n : r.notes) out += "note: " + n + "\n";
  // "vs best" repeats "vs os" when os is best: the column is left out then.
  const bool best_column = !r.best_is_os();
  std::vector<std::string> headers = {"candidate", "runs>", "median (95% interval)>", "vs os"};
  if (best_column) headers.push_back("vs best");
  headers.push_back("machine");
  TextTable table(headers);
  std::string failures, how;
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    const tune::CandidateResult& c = r.candidates[i];
    how += fmt::format("  {}: {}\n", c.candidate.name, how_text(c));
    std::vector<std::string> row;
    if (c.failed) {
      row = {c.candidate.name, std::to_string(c.samples.size()), "failed", "not ranked"};
      failures += "failed: " + c.candidate.name + ": " + terminal_safe(c.failure) + "\n";
    } else if (c.samples.empty()) {
      row = {c.candidate.name, "0", "", ""};
    } else {
      row = {c.candidate.name + (i == r.best && r.decided() ? " *" : ""),
             std::to_string(c.samples.size()), median_cell(c, unit),
             verdict_cell(c.vs_os, c.candidate.is_os())};
    }
    if (best_column)
      row.push_back(c.failed            ? "not ranked"
                    : c.samples.empty() ? ""
                                        : verdict_cell(c.vs_best, i == r.best));
    row.push_back(machine_cell(c));
    table.add_row(row);
  }
  out += "\n" + table.str() + failures;
  out +=
      "verdicts: u = the unpaired rule decided (Mann-Whitney p <= 0.025, 95% median intervals "
      "apart), p = the paired\nrule (Wilcoxon signed-rank on per-round ratios p <= 0.025, their "
      "97.5% interval without 1); both need effect\n>= 5%; too few runs = no rule can be clear "
      "with so few. machine: busy N/M = N of M kept runs had neighbours\non these CPUs (a round "
      "with such a run counts for no verdict); rerun = dropped and run again\n";
  out += "how each candidate ran (what threadmap run adds to the command):\n" + how;
  out += "\nmachine: " +
         (r.machine_state.summary.empty() ? std::string("not watched")
                                          : terminal_safe(r.machine_state.summary)) +
         fmt::format(" ({} of {} kept runs disturbed)\n", r.runs_disturbed, r.runs_kept);
  if (!r.disturbed_note.empty()) out += r.disturbed_note + "\n";
  if (r.decided())
    out += "best: " + r.name_of(r.best) + "\n";
  else
    out += "undecided: " + r.undecided + "\nto decide: " + r.to_decide + "\n";
  out += r.conclusion + "\n";
  out += fmt::format(
      "rounds: {} in {:.1f} s (budget {:.0f} s), interleaved, first run unrecorded (warm-up)\n"
      "stopped: {}\n",
      r.rounds, r.elapsed_s, r.budget_s, r.stopped);
  if (r.interrupted) out += "interrupted: these verdicts are on the runs finished so far\n";
  if (!reproduce.empty()) out += "\nreproduce " + r.name_of(r.best) + ":\n" + reproduce;
  return out;
}

nlohmann::json tune_json(const tune::TuneResult& r, const std::string& reproduce) {
  nlohmann::json candidates = nlohmann::json::array();
  std::vector<std::string> command;
  std::vector<std::string> launcher;
  for (const auto& c : r.candidates) {
    command = c.candidate.options.command;
    launcher = c.candidate.launcher;
    nlohmann::json j = {{"name", c.candidate.name},
                        {"meaning", c.candidate.meaning},
                        {"same_as", c.candidate.same_as},
                        {"how", c.how},
                        {"cpu_order", c.candidate.order},
                        {"failed", c.failed},
                        {"samples", c.samples},
                        {"wall_s", c.wall_s},
                        {"repeated_busy_runs", c.repeated},
                        {"disturbed_runs_kept", c.disturbed_kept},
                        {"machine_state", machine_state_json(c.machine_state)}};
    if (c.failed) j["failure"] = valid_utf8(c.failure);
    if (!c.failed && !c.samples.empty()) {
      j["median"] = c.interval.median;
      j["median_interval_95"] = {c.interval.low, c.interval.high};
      j["verdict_vs_os"] = verdict_json(c.vs_os);
      j["verdict_vs_best"] = verdict_json(c.vs_best);
    } else {
      j["median"] = nullptr;
      j["verdict_vs_os"] = nullptr;
      j["verdict_vs_best"] = nullptr;
    }
    candidates.push_back(std::move(j));
  }
  return {{"schema", "threadmap.tune/1"},
          {"command", command},
          {"launcher", launcher},
          {"metric",
           {{"kind", r.metric.kind == tune::Metric::Kind::wall  ? "wall"
                     : r.metric.kind == tune::Metric::Kind::cpu ? "cpu"
                                                                : "regex"},
            {"pattern", r.metric.pattern},
            {"higher_is_better", r.metric.higher_is_better},
            {"unit", r.metric.unit()},
            {"evidence", r.metric.describe()}}},
          {"best", r.decided() ? nlohmann::json(r.name_of(r.best)) : nlohmann::json(nullptr)},
          {"decided", r.decided()},
          {"undecided", r.undecided},
          {"to_decide", r.to_decide},
          {"rounds_disturbed", r.rounds_disturbed},
          {"leader", r.name_of(r.leader)},
          {"conclusion", r.conclusion},
          {"test",
           "runs interleaved in rounds; clear when, each at 0.025, the unpaired rule (two-sided "
           "Mann-Whitney U, 95% median intervals apart) or the paired rule (two-sided Wilcoxon "
           "signed-rank on per-round log ratios, the ratio's 97.5% interval without 1) holds, "
           "with an effect >= 5%; each verdict's decided_by says which"},
          {"machine_state", machine_state_json(r.machine_state)},
          {"runs_kept", r.runs_kept},
          {"runs_disturbed", r.runs_disturbed},
          {"disturbed_note", r.disturbed_note},
          {"rounds", r.rounds},
          {"elapsed_s", r.elapsed_s},
          {"budget_s", r.budget_s},
          {"interrupted", r.interrupted},
          {"stopped", r.stopped},
          {"notes", r.notes},
          {"candidates", candidates},
          {"reproduce", reproduce},
          {"output",
           {{"text", valid_utf8(r.record_output)},
            {"truncated", r.record_truncated},
            {"from", "the first (warm-up) run, no placement"}}}};
}

}  // namespace threadmap::render
