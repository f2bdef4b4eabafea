#include "src/render/tune_view.hpp"

#include <fmt/format.h>

#include <cmath>

#include "src/render/machine_state_json.hpp"
#include "src/render/safe_text.hpp"
#include "src/render/text_table.hpp"

namespace threadmap::render {
namespace {

std::string number(double v, const std::string& unit) {
  return fmt::format("{:.4g}", v) + (unit.empty() ? "" : " " + unit);
}

// "4.90x faster, p=0.008" / "no clear difference (p=0.31 > 0.05)" / "-" for itself.
std::string verdict_cell(const Verdict& v, bool self) {
  if (self) return "-";
  if (v.kind == Verdict::Kind::not_enough_samples) return "not enough runs";
  if (v.clear()) {
    double factor = v.kind == Verdict::Kind::better ? v.ratio : (v.ratio > 0 ? 1 / v.ratio : 0);
    return fmt::format("{:.2f}x {}, p={:.3g}", factor, v.word(), v.p_value);
  }
  // The p-value alone would read as a contradiction when it is small: say which other
  // criterion failed.
  std::string why = fmt::format("p={:.2g}", v.p_value);
  if (v.intervals_overlap) why += ", intervals overlap";
  if (v.ratio > 0 && std::abs(v.ratio - 1) < 0.05) why += ", effect < 5%";
  return "no clear difference (" + why + ")";
}

// What the run line adds to the command: "--cpus 0 --policy compact", "--ranks auto --policy
// scatter", "(nothing)" / "(launcher alone)" for os.
std::string how_cell(const tune::CandidateResult& c) {
  if (c.candidate.name == "os")
    return c.candidate.launcher.empty() ? "(nothing)" : "(launcher alone)";
  std::vector<std::string> args = tune::run_arguments(c.candidate);
  std::string out;
  for (std::size_t i = 1; i < args.size() && args[i] != "--"; ++i)
    out += (out.empty() ? "" : " ") + args[i];
  return out.empty() ? "(nothing)" : out;
}

}  // namespace

nlohmann::json verdict_json(const Verdict& v) {
  return {{"word", v.word()},
          {"ratio", v.ratio},
          {"p_value", v.p_value},
          {"intervals_overlap", v.intervals_overlap},
          {"basis", v.basis},
          {"reason", v.reason},
          {"n_candidate", v.n_candidate},
          {"n_baseline", v.n_baseline}};
}

std::string tune_text(const tune::TuneResult& r, const std::string& reproduce) {
  const std::string unit = r.metric.unit();
  std::string out = "metric: " + r.metric.describe() + "\n";
  for (const auto& n : r.notes) out += "note: " + n + "\n";
  TextTable table(
      {"candidate", "how", "runs>", "median>", "95% interval>", "vs os", "vs best", "machine"});
  std::string failures;
  for (const auto& c : r.candidates) {
    std::string machine = c.machine_state.verdict;
    if (c.repeated > 0) machine += fmt::format(", {} repeated", c.repeated);
    if (c.disturbed_kept > 0) machine += fmt::format(", {} disturbed (kept)", c.disturbed_kept);
    if (c.failed) {
      table.add_row({c.candidate.name, how_cell(c), std::to_string(c.samples.size()), "failed", "",
                     "not ranked", "not ranked", machine});
      failures += "failed: " + c.candidate.name + ": " + terminal_safe(c.failure) + "\n";
      continue;
    }
    std::string name = c.candidate.name + (c.candidate.name == r.best ? " *" : "");
    if (c.samples.empty()) {
      table.add_row({name, how_cell(c), "0", "", "", "", "", machine});
      continue;
    }
    table.add_row({name, how_cell(c), std::to_string(c.samples.size()),
                   number(c.interval.median, unit),
                   number(c.interval.low, "") + " - " + number(c.interval.high, unit),
                   verdict_cell(c.vs_os, c.candidate.name == "os"),
                   verdict_cell(c.vs_best, c.candidate.name == r.best), machine});
  }
  out += "\n" + table.str() + failures + "\n";
  out += "best: " + r.best + "\n" + r.conclusion + "\n";
  out +=
      "test: two-sided Mann-Whitney U at 5%, 95% median intervals apart, effect >= 5%; "
      "runs interleaved, first run unrecorded (warm-up)\n";
  out += fmt::format("rounds: {} in {:.1f} s (budget {:.0f} s); stopped: {}\n", r.rounds,
                     r.elapsed_s, r.budget_s, r.stopped);
  if (r.interrupted) out += "interrupted: these verdicts are on the runs finished so far\n";
  if (!reproduce.empty()) out += "\nreproduce " + r.best + ":\n" + reproduce;
  return out;
}

nlohmann::json tune_json(const tune::TuneResult& r, const std::string& reproduce) {
  nlohmann::json candidates = nlohmann::json::array();
  std::vector<std::string> command;
  std::vector<std::string> launcher;
  for (const auto& c : r.candidates) {
    command = c.candidate.request.command;
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
  return {
      {"schema", "threadmap.tune/1"},
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
      {"best", r.best},
      {"leader", r.leader},
      {"conclusion", r.conclusion},
      {"test", "two-sided Mann-Whitney U at alpha 0.05, 95% median intervals apart, effect >= 5%"},
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
