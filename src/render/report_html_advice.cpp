// The report's advice and benchmark sections: recommendations with the commands that apply
// them, SMT guidance, the thread cache, the key benchmarks, and how everything was measured.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "src/core/text.hpp"
#include "src/experiments/bench_result.hpp"
#include "src/render/bench_view.hpp"
#include "src/render/report_html.hpp"
#include "src/render/report_html_util.hpp"

namespace threadmap::render::detail {
namespace {

using experiments::BenchResult;
using report::MachineReport;

// `lead`: a sentence a reader needs before the numbers ("" for none). `busy_said`: the busy
// machine summaries already said on the page; a bench measured in a state said before refers to it
// instead of saying it again.
std::string bench_block(const BenchResult& b, const report::PartStatus& status,
                        const std::string& heading, std::set<std::string>& busy_said,
                        const std::string& lead = "") {
  std::string out = "<h3>" + html::escape(heading) + "</h3>\n";
  if (!b.available || !status.available)
    return out + html::unavailable("This benchmark", b.unavailable_reason.empty()
                                                         ? status.reason
                                                         : b.unavailable_reason);
  if (!lead.empty()) out += "<p><strong>" + html::escape(lead) + "</strong></p>\n";
  out += "<p>" + html::escape(b.title) + ". " +
         html::escape(fmt::format("Each value: {}; median of {} runs{}.", b.how_measured, b.runs,
                                  b.quick ? " (quick mode)" : "")) +
         "</p>\n";
  if (b.machine_state && b.machine_state->busy()) {
    const std::string line = bench_machine_line(b);
    out += "<p class=\"warn\">" +
           html::escape(busy_said.contains(line) ? "Measured on a busy machine, as described above."
                                                 : line) +
           "</p>\n";
    busy_said.insert(line);
  }
  if (const std::string rounds = bench_rounds_text(b); !rounds.empty())
    out += "<p class=\"note\">Runs: " + html::escape(rounds) + ".</p>\n";
  out += html::bench_bars_svg(b);
  std::vector<std::vector<std::string>> rows;
  for (const auto& v : b.variants) {
    if (!v.available) {
      rows.push_back({v.label, "not run: " + v.unavailable_reason, "-", "-", "-", "-"});
      continue;
    }
    const std::string unit = variant_unit(b, v);
    const std::string min = bench_value_text(v.value.min, unit);
    const std::string max = bench_value_text(v.value.max, unit);
    rows.push_back({v.label, bench_ratio_text(b, v), bench_value_text(v.value.median, unit),
                    min == max ? min : min + " .. " + max,
                    fmt::format("{:.0f}%", v.value.spread_pct), v.placement});
  }
  // The verdict right after the variant's name, and rows that stack on a phone: what a reader
  // came for is on screen at 400 px without scrolling sideways.
  out +=
      html::stacked_table({"variant", "vs baseline", "median", "min .. max", "spread", "placement"},
                          rows, {2, 3, 4}, 1);
  // Counters no variant could count are one line, not a column of "not supported".
  const CounterColumns columns = counter_columns(b);
  if (!columns.shown.empty()) {
    std::vector<std::string> headers{"counters, median per run"};
    std::vector<std::vector<std::string>> crow;
    std::vector<std::size_t> numeric;
    for (const auto& name : columns.shown) {
      headers.push_back(name);
      numeric.push_back(headers.size() - 1);
    }
    for (const auto& v : b.variants) {
      if (v.counters.empty()) continue;
      std::vector<std::string> row{v.label};
      for (const auto& name : columns.shown) {
        const experiments::Counter* c = counter_named(v, name);
        row.push_back(!c || !c->supported ? "not supported"
                      : c->median >= 100  ? fmt::format("{:.0f}", c->median)
                                          : fmt::format("{:.2f}", c->median));
      }
      crow.push_back(row);
    }
    out += html::stacked_table(headers, crow, numeric);
    for (const auto& name : columns.shown)
      out += "<p class=\"note\">" + html::escape(name + ": " + columns.how.at(name)) + "</p>\n";
  }
  for (const std::string& line : columns.unsupported_lines)
    out += "<p class=\"note\">" + html::escape(line) + ".</p>\n";
  for (const auto& n : b.notes) out += "<p class=\"note\">" + html::escape(n) + "</p>\n";
  out += "<p class=\"note\">Published: " + html::escape(b.published) + "</p>\n";
  return out;
}

std::string recommendations_section(const MachineReport& r) {
  std::string out = "<section id=\"recommendations\"><h2>Recommendations</h2>\n";
  const auto& a = r.advice;
  if (!a.status.available)
    return out + html::unavailable("Recommendations", a.status.reason) + "</section>\n";
  if (!a.model.empty())
    out +=
        "<p class=\"note\">From the planner (the same one <code>threadmap plan</code> uses); "
        "cost model: " +
        html::escape(a.model) +
        ". <code>./app</code> stands for your "
        "program.</p>\n";
  // The summary itself is at a glance (said once); here what it rests on.
  if (!a.placement_summary.empty()) out += "<p>What the summary at a glance rests on:</p>\n";
  if (!a.placement_findings.empty()) {
    out += "<ul>\n";
    for (const auto& f : a.placement_findings) out += "<li>" + html::escape(f) + "</li>\n";
    out += "</ul>\n";
  }
  for (const auto& rec : a.recommendations) {
    out +=
        "<h3>" + html::escape(rec.title) +
        (rec.cpus.empty() ? std::string() : ": CPUs <code>" + html::escape(rec.cpus) + "</code>") +
        "</h3>\n<p>" + html::escape(rec.why) + "</p>\n";
    for (const auto& c : rec.commands)
      out += "<div class=\"cmd\"><span>" + html::escape(c.tool) + "</span><pre><code>" +
             html::escape(c.command) + "</code></pre></div>\n";
  }
  if (a.recommendations.empty() && !a.nothing_to_gain)
    out += "<p>No recommendation: fewer than two usable CPUs.</p>\n";
  out +=
      "<p class=\"note\">taskset restricts the whole process to the CPUs; "
      "<code>threadmap run</code> pins each thread to its own CPU in creation order; "
      "OMP_PLACES gives each OpenMP thread one place, in order.</p>\n";
  return out + "</section>\n";
}

std::string smt_section(const MachineReport& r) {
  std::string out = "<section id=\"smt\"><h2>SMT guidance</h2>\n";
  if (!r.advice.status.available && r.advice.smt_layout.empty())
    return out + html::unavailable("SMT guidance", r.advice.status.reason) + "</section>\n";
  out += "<p>" + html::escape(r.advice.smt_layout) + ".</p>\n<ul>\n";
  for (const auto& g : r.advice.smt_guidance) out += "<li>" + html::escape(g) + "</li>\n";
  return out + "</ul>\n</section>\n";
}

}  // namespace

std::string advice_and_bench_sections(const MachineReport& r) {
  std::string out = recommendations_section(r);
  out += smt_section(r);
  out += "<section id=\"thread-cache\"><h2>Thread cache: spawn with and without it</h2>\n";
  // Each bench says the state it was measured in beside it once; a later bench measured in a
  // state already said refers to it.
  std::set<std::string> busy_said;
  for (std::size_t i = 0; i < r.benches.size(); ++i)
    if (r.benches[i].name == "spawn")
      out += bench_block(r.benches[i], r.bench_status[i], "create + join rate", busy_said);
  out +=
      "</section>\n<section id=\"benchmarks\"><h2>Key benchmarks</h2>\n"
      "<p>The published placement experiments, rerun here side by side. Each bar is a variant "
      "against its baseline (the centre line), as a factor on a log scale: right = faster, "
      "left = slower; green and red only when the difference is clear, blue when it is "
      "not.</p>\n<details><summary>What \"clear\" means</summary><p>A Mann-Whitney rank test "
      "p &lt;= 0.025 with the 95% median intervals apart, or (paired) a signed-rank test p "
      "&lt;= 0.025 on the per-round ratios with their 97.5% interval without 1; and at least 5% "
      "apart. A clear difference measured while others used these CPUs is marked so and no "
      "advice rests on it; unclear comparisons get more interleaved runs within a time budget "
      "before the verdict is given.</p></details>\n";
  // Without SMT the SMT bench still runs its "two cores" row: what a slower one means is said.
  const std::string no_smt =
      r.advice.has_smt
          ? std::string()
          : "No SMT here (one hardware thread per core), so the SMT-sibling rows could not run. "
            "\"Two cores\" slower than \"alone\" is not an SMT effect: the two CPUs share "
            "something else (on a VM, two vCPUs can be siblings of one host core) or other work "
            "used them.";
  for (std::size_t i = 0; i < r.benches.size(); ++i)
    if (r.benches[i].name != "spawn")
      out += bench_block(r.benches[i], r.bench_status[i], r.benches[i].name, busy_said,
                         r.benches[i].name == "smt" ? no_smt : std::string());
  out += "</section>\n<section id=\"method\"><h2>How this was measured</h2>\n";
  // Each part's share of the budget beside the time it took (report_budget.hpp).
  auto row = [](const std::string& part, const std::string& how, const report::PartStatus& s) {
    // The share, and what the part was given with the time the parts before it left.
    const std::string share =
        s.given_s > 0 && std::abs(s.given_s - s.share_s) >= 0.05
            ? duration_text(s.share_s) + " (given " + duration_text(s.given_s) + ")"
            : duration_text(s.share_s);
    return std::vector<std::string>{part, share, duration_text(s.seconds), how};
  };
  std::vector<std::vector<std::string>> rows{
      row("topology", r.topology_status.available ? "ok" : r.topology_status.reason,
          r.topology_status),
      row("latency", r.latency.status.available ? r.latency.how : r.latency.status.reason,
          r.latency.status)};
  for (std::size_t i = 0; i < r.benches.size(); ++i)
    rows.push_back(
        row("bench " + r.benches[i].name,
            r.bench_status[i].available ? r.benches[i].how_measured : r.bench_status[i].reason,
            r.bench_status[i]));
  rows.push_back(row("recommendations",
                     r.advice.status.available ? r.advice.model : r.advice.status.reason,
                     r.advice.status));
  out += fmt::format(
      "<p>Time budget: {:.0f} s (<code>report --budget</code>), shared between the parts; each "
      "stops by its own rule within its share (latency: time per CPU pair; a bench: no planned "
      "round that would not fit, after at least {}, the fewest that can give a clear verdict, and "
      "added rounds only in what is left). Used in all: {}.</p>\n",
      r.budget_s, experiments::least_clear_rounds(), duration_text(r.total_seconds));
  out += html::stacked_table({"part", "share", "wall time", "how / why unavailable"}, rows, {1, 2});
  out +=
      "<p class=\"note\">Everything on this page was measured on this machine by this run, "
      "except where a part says it was loaded from a file. The same data is in report.json "
      "(schema threadmap.report/1).</p>\n</section>\n";
  return out;
}

}  // namespace threadmap::render::detail
