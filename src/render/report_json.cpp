#include "src/render/report_json.hpp"

#include "src/latency/compare.hpp"
#include "src/latency/matrix_files.hpp"
#include "src/render/bench_view.hpp"
#include "src/render/device_view.hpp"
#include "src/render/machine_state_json.hpp"
#include "src/render/topology_view.hpp"

namespace threadmap::render {
namespace {

using nlohmann::json;

json status_json(const report::PartStatus& s) {
  return {{"available", s.available},
          {"unavailable_reason", s.available ? json(nullptr) : json(s.reason)},
          {"seconds", s.seconds}};
}

json latency_part_json(const report::LatencyPart& lat, const std::string& heatmap_file) {
  json j = status_json(lat.status);
  if (!lat.status.available) return j;
  j["how"] = lat.how;
  j["describes_this_machine"] = lat.describes_this_machine;
  j["notes"] = lat.notes;
  j["stability"] = {
      {"state", lat.stability_state},
      {"pairs_moved", lat.matrix.stability.pairs_moved},
      {"pairs_checked", lat.matrix.stability.pairs_checked},
      {"reason", lat.matrix.stability.reason},
      {"finding", lat.stability_finding.empty() ? json(nullptr) : json(lat.stability_finding)}};
  j["heatmap_png"] = heatmap_file.empty() ? json(nullptr) : json(heatmap_file);
  j["matrix"] =
      latency::latency_json(lat.matrix, lat.domains, lat.measurement ? &*lat.measurement : nullptr);
  json lines = json::array();
  if (lat.comparison)
    for (const auto& c : lat.comparison->lines)
      lines.push_back({{"latency_level", c.latency_level},
                       {"hwloc_level", c.hwloc_level},
                       {"relation", latency::relation_name(c.relation)},
                       {"sentence", c.sentence}});
  j["hwloc_comparison"] = lat.comparison ? json(lines) : json(nullptr);
  json lies = json::array();
  for (const auto& w : lat.numbering.worst)
    lies.push_back({{"cpu", w.cpu},
                    {"nearest", w.nearest},
                    {"nearest_ns", w.nearest_ns},
                    {"next_cpu", w.next_cpu},
                    {"next_ns", w.next_ns},
                    {"cost_ratio", w.cost_ratio}});
  j["numbering_lies"] = lies;
  return j;
}

json advice_json(const report::AdvicePart& a) {
  json j = status_json(a.status);
  j["model"] = a.model;
  json recs = json::array();
  for (const auto& r : a.recommendations) {
    json cmds = json::array();
    for (const auto& c : r.commands) cmds.push_back({{"tool", c.tool}, {"command", c.command}});
    recs.push_back({{"title", r.title}, {"cpus", r.cpus}, {"why", r.why}, {"commands", cmds}});
  }
  j["recommendations"] = recs;
  j["smt"] = {{"has_smt", a.has_smt}, {"layout", a.smt_layout}, {"guidance", a.smt_guidance}};
  j["placement"] = {{"nothing_to_gain", a.nothing_to_gain},
                    {"summary", a.placement_summary},
                    {"findings", a.placement_findings}};
  return j;
}

// The time budget and, per part, its share and the time it actually took (report_budget.hpp).
json budget_json(const report::MachineReport& r) {
  json parts = json::array();
  auto add = [&](const std::string& part, const report::PartStatus& s) {
    parts.push_back({{"part", part},
                     {"share_s", s.share_s},
                     {"given_s", s.given_s > 0 ? s.given_s : s.share_s},
                     {"used_s", s.seconds}});
  };
  add("topology", r.topology_status);
  add("latency", r.latency.status);
  for (std::size_t i = 0; i < r.benches.size() && i < r.bench_status.size(); ++i)
    add("bench " + r.benches[i].name, r.bench_status[i]);
  add("recommendations", r.advice.status);
  return {{"seconds", r.budget_s}, {"used_s", r.total_seconds}, {"parts", parts}};
}

}  // namespace

json report_json(const report::MachineReport& r, const std::string& heatmap_file) {
  json j{{"schema", "threadmap.report/1"},           {"generated_utc", r.generated_utc},
         {"threadmap_version", r.threadmap_version}, {"quick", r.quick},
         {"total_seconds", r.total_seconds},         {"usable_cpus", r.usable_cpus}};
  json topo = status_json(r.topology_status);
  if (r.topology) {
    topo["topology"] = topology_json(*r.topology);
    add_devices(topo["topology"], r.devices);
  }
  j["topology"] = topo;
  j["machine_state"] = r.machine_state ? machine_state_json(*r.machine_state) : json(nullptr);
  j["binding"] = r.binding ? binding_json(*r.binding) : json(nullptr);
  j["latency"] = latency_part_json(r.latency, heatmap_file);
  j["advice"] = advice_json(r.advice);
  json benches = json::array();
  for (std::size_t i = 0; i < r.benches.size(); ++i) {
    json b = bench_json(r.benches[i]);
    b["seconds"] = r.bench_status[i].seconds;
    benches.push_back(b);
  }
  j["benches"] = benches;
  j["host"] = r.host;
  j["command_line"] = r.command_line;
  j["budget"] = budget_json(r);
  if (r.latency.status.available && !r.latency.loaded_machine.empty())
    j["latency"]["loaded_machine"] = r.latency.loaded_machine;
  return j;
}

}  // namespace threadmap::render
