#include "src/render/bench_view.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "src/render/machine_state_json.hpp"
#include "src/render/text_table.hpp"

namespace threadmap::render {

using experiments::BenchResult;
using experiments::Variant;

std::string bench_value_text(double value, const std::string& unit) {
  if (unit.size() > 2 && unit.ends_with("/s")) {
    if (value >= 1e6) return fmt::format("{:.2f} M {}", value / 1e6, unit);
    if (value >= 1e3) return fmt::format("{:.1f} k {}", value / 1e3, unit);
    return fmt::format("{:.0f} {}", value, unit);
  }
  if (value >= 100) return fmt::format("{:.0f} {}", value, unit);
  if (value >= 10) return fmt::format("{:.1f} {}", value, unit);
  return fmt::format("{:.2f} {}", value, unit);
}

std::string variant_unit(const BenchResult& r, const Variant& v) {
  return v.unit.empty() ? r.unit : v.unit;
}

std::string bench_ratio_text(const BenchResult& /*result: the verdict says it all*/,
                             const Variant& v) {
  if (!v.available) return "not run";
  if (v.verdict == "reference") return "reference, not compared";
  if (v.baseline.empty()) return "baseline";
  if (v.verdict == "not run") return "- (baseline not run)";
  // Only a clear verdict gets a ratio: an unclear one is lost in the spread, so saying
  // "1.40x faster" there would contradict the samples.
  if (v.comparison.kind == Verdict::Kind::too_few_runs) return v.comparison.short_text();
  // The spread the verdict is lost in may be the baseline's: a row never quotes it as its own.
  if (!v.verdict_clear && v.comparison_spread_pct > v.value.spread_pct + 0.5)
    return fmt::format("no clear difference (baseline's spread {:.0f}%, this row's {:.0f}%)",
                       v.comparison_spread_pct, v.value.spread_pct);
  if (!v.verdict_clear)
    return fmt::format("no clear difference (spread {:.0f}%)", v.comparison_spread_pct);
  if (v.ratio_to_baseline <= 0) return "-";
  // Which rule decided, and a clear difference measured while others used these CPUs.
  const std::string how = v.comparison.decided_by == Verdict::Decider::paired ? ", paired" : "";
  const std::string busy = v.measured_while_busy ? ", measured while busy" : "";
  if (v.ratio_to_baseline >= 1)
    return fmt::format("{:.2f}x faster{}{}", v.ratio_to_baseline, how, busy);
  return fmt::format("{:.2f}x slower{}{}", 1 / v.ratio_to_baseline, how, busy);
}

namespace {

// "min .. max", or the one value when both read the same (a single run).
std::string range_text(const std::string& min, const std::string& max) {
  return min == max ? min : min + " .. " + max;
}

}  // namespace

const experiments::Counter* counter_named(const Variant& v, const std::string& name) {
  for (const auto& c : v.counters)
    if (c.name == name) return &c;
  return nullptr;
}

CounterColumns counter_columns(const BenchResult& r) {
  CounterColumns out;
  std::vector<std::string> names;
  for (const Variant& v : r.variants)
    for (const auto& c : v.counters)
      if (std::find(names.begin(), names.end(), c.name) == names.end()) names.push_back(c.name);
  // Counters no variant could count, grouped by why: one line each, not a column of "not
  // supported" in every row.
  std::vector<std::pair<std::string, std::vector<std::string>>> by_reason;
  for (const auto& name : names) {
    const experiments::Counter* supported = nullptr;
    std::string reason;
    for (const Variant& v : r.variants)
      if (const experiments::Counter* c = counter_named(v, name)) {
        if (c->supported && !supported) supported = c;
        if (!c->supported && reason.empty()) reason = c->reason;
      }
    if (supported) {
      out.shown.push_back(name);
      out.how[name] = supported->how;
      continue;
    }
    auto it = std::find_if(by_reason.begin(), by_reason.end(),
                           [&](const auto& g) { return g.first == reason; });
    if (it == by_reason.end())
      by_reason.push_back({reason, {name}});
    else
      it->second.push_back(name);
  }
  for (const auto& [reason, group] : by_reason) {
    std::string list;
    for (const auto& n : group) list += (list.empty() ? "" : ", ") + n;
    out.unsupported_lines.push_back("counters not supported here: " + list +
                                    (reason.empty() ? "" : " (" + reason + ")"));
  }
  return out;
}

std::string bench_machine_line(const experiments::BenchResult& r) {
  return r.machine_state ? machine_state_line(*r.machine_state) : "";
}

std::string machine_state_line(const MachineState& state) {
  const std::string& summary = state.summary;
  if (state.busy())
    return "measured on a busy machine: " +
           (summary.starts_with("busy: ") ? summary.substr(6) : summary);
  return "machine: " + summary;
}

std::string bench_rounds_text(const experiments::BenchResult& r) {
  if (r.rounds.planned == 0) return "";
  if (r.rounds.added == 0)
    return fmt::format("{} planned runs; {}", r.rounds.planned, r.rounds.stop_reason);
  return fmt::format("{} planned runs + {} added ({:.1f} s) to settle unclear verdicts; {}",
                     r.rounds.planned, r.rounds.added, r.rounds.added_s, r.rounds.stop_reason);
}

std::string bench_text(const BenchResult& r) {
  std::string out;
  if (r.binding && !r.binding->finding.empty()) out += "warning: " + r.binding->finding + "\n";
  out += fmt::format("{}: {}\n", r.name, r.title);
  if (!r.available) return out + "  not available here: " + r.unavailable_reason + "\n";
  out += fmt::format("usable CPUs {}; each value is the median of {} run{}{}; {}\n", r.allowed_cpus,
                     r.runs, r.runs == 1 ? "" : "s",
                     r.quick ? " (quick mode: less work per run)" : "", r.how_measured);
  if (const std::string machine = bench_machine_line(r); !machine.empty()) out += machine + "\n";
  if (const std::string rounds = bench_rounds_text(r); !rounds.empty())
    out += "runs: " + rounds + "\n";
  out += "\n";
  TextTable table({"variant", "placement", "median>", "min .. max>", "spread>", "vs baseline>"});
  for (const Variant& v : r.variants) {
    if (!v.available) {
      table.add_row({v.label, "-", "-", "-", "-", "not run"});
      continue;
    }
    const std::string unit = variant_unit(r, v);
    table.add_row(
        {v.label, v.placement, bench_value_text(v.value.median, unit),
         range_text(bench_value_text(v.value.min, unit), bench_value_text(v.value.max, unit)),
         fmt::format("{:.0f}%", v.value.spread_pct), bench_ratio_text(r, v)});
  }
  out += table.str();
  out += fmt::format(
      "spread = (max - min) / median; ratios compare medians with the row marked baseline{}, "
      "and are shown\nonly when the difference is clear: Mann-Whitney rank test p <= 0.025 with "
      "95% median intervals apart, or\n(\"paired\") a signed-rank test p <= 0.025 on the "
      "per-round ratios with their 97.5% interval without 1; effect >= 5%\n",
      r.higher_is_better ? " (higher is better)" : " (lower is better)");
  for (const Variant& v : r.variants)
    if (v.measured_while_busy) {
      out +=
          "measured while busy: others used these CPUs during the rounds, so a clear "
          "difference may be theirs; no advice rests on it\n";
      break;
    }

  const CounterColumns columns = counter_columns(r);
  if (!columns.shown.empty()) {
    std::vector<std::string> headers{"counters (median per run)"};
    for (const auto& name : columns.shown) headers.push_back(name + ">");
    TextTable counters(headers);
    for (const Variant& v : r.variants) {
      if (v.counters.empty()) continue;
      std::vector<std::string> row{v.label};
      for (const auto& name : columns.shown) {
        const experiments::Counter* c = counter_named(v, name);
        // Small medians (system calls per operation) need their decimals; counts do not.
        row.push_back(!c || !c->supported ? "not supported"
                      : c->median >= 100  ? fmt::format("{:.0f}", c->median)
                                          : fmt::format("{:.2f}", c->median));
      }
      counters.add_row(row);
    }
    out += "\n" + counters.str();
    for (const auto& name : columns.shown)
      out += fmt::format("  {}: {}\n", name, columns.how.at(name));
  }
  for (const std::string& line : columns.unsupported_lines) out += line + "\n";
  for (const Variant& v : r.variants)
    if (!v.available) out += fmt::format("not run: {}: {}\n", v.label, v.unavailable_reason);
  for (const std::string& note : r.notes) out += "note: " + note + "\n";
  out += "published: " + r.published + "\n";
  return out;
}

nlohmann::json bench_json(const BenchResult& r) {
  using nlohmann::json;
  json doc{{"schema", "threadmap.bench/1"},
           {"bench", r.name},
           {"title", r.title},
           {"available", r.available},
           {"unavailable_reason", r.available ? json(nullptr) : json(r.unavailable_reason)}};
  if (r.binding) doc["binding"] = binding_json(*r.binding);
  if (!r.available) return doc;
  doc["unit"] = r.unit;
  doc["higher_is_better"] = r.higher_is_better;
  doc["how_measured"] = r.how_measured;
  doc["statistic"] = fmt::format("median of {} runs", r.runs);
  doc["runs"] = r.runs;
  doc["quick"] = r.quick;
  doc["usable_cpus"] = r.allowed_cpus;
  doc["published"] = r.published;
  doc["machine_state"] = r.machine_state ? machine_state_json(*r.machine_state) : json(nullptr);
  doc["rounds"] = {{"planned", r.rounds.planned},
                   {"added", r.rounds.added},
                   {"cap", r.rounds.cap},
                   {"added_time_factor", r.rounds.time_factor},
                   {"planned_seconds", r.rounds.planned_s},
                   {"added_seconds", r.rounds.added_s},
                   {"added_budget_seconds", r.rounds.budget_s},
                   {"share_seconds", r.rounds.share_s},
                   {"share_reached", r.rounds.share_reached},
                   {"budget", r.rounds.budget},
                   {"stop_reason", r.rounds.stop_reason}};
  json variants = json::array();
  for (const Variant& v : r.variants) {
    json threads = json::array();
    for (const auto& t : v.threads)
      threads.push_back({{"thread", t.thread},
                         {"cpus", t.cpus.empty() ? json(nullptr) : json(t.cpus.to_list())}});
    json jv{{"name", v.name},
            {"label", v.label},
            {"available", v.available},
            {"unavailable_reason", v.available ? json(nullptr) : json(v.unavailable_reason)},
            {"placement", v.placement},
            {"unit", variant_unit(r, v)},
            {"threads", threads},
            {"baseline", v.baseline.empty() ? json(nullptr) : json(v.baseline)},
            {"verdict", v.verdict},
            {"verdict_basis", v.verdict_basis},
            {"verdict_decided_by", v.comparison.decider_name()},
            {"measured_while_busy", v.measured_while_busy}};
    if (v.available) {
      jv["median"] = v.value.median;
      jv["min"] = v.value.min;
      jv["max"] = v.value.max;
      jv["spread_pct"] = v.value.spread_pct;
      jv["samples"] = v.value.samples;
      jv["ratio_to_baseline"] = v.ratio_to_baseline > 0 ? json(v.ratio_to_baseline) : json(nullptr);
    }
    json counters = json::array();
    for (const auto& c : v.counters) {
      counters.push_back({{"name", c.name},
                          {"unit", c.unit},
                          {"supported", c.supported},
                          {"median", c.supported ? json(c.median) : json(nullptr)},
                          {"how", c.supported ? json(c.how) : json(nullptr)},
                          {"reason", c.supported ? json(nullptr) : json(c.reason)}});
    }
    jv["counters"] = counters;
    variants.push_back(jv);
  }
  doc["variants"] = variants;
  doc["notes"] = r.notes;
  return doc;
}

}  // namespace threadmap::render
