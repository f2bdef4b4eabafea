#include "src/render/report_json.hpp"

#include <algorithm>

#include "src/core/json_text.hpp"
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

// The reader: what `threadmap fleet` compares about one host, from the document above.
namespace {

const json* at(const json& j, std::initializer_list<const char*> path) {
  const json* cur = &j;
  for (const char* key : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

std::string str(const json& j, std::initializer_list<const char*> path) {
  const json* v = at(j, path);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

int count(const json& j, const char* key) {
  const json* v = at(j, {"topology", "topology", "counts", key});
  return v && v->is_number_integer() ? v->get<int>() : -1;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

void read_latency(const json& doc, fleet::HostRecord& r) {
  const json* m = at(doc, {"latency", "matrix"});
  if (!m || !m->is_object()) return;
  const json* cpus = at(*m, {"cpus"});
  const json* cells = at(*m, {"matrix"});
  if (!cpus || !cells || !cpus->is_array() || !cells->is_array() || cpus->size() != cells->size())
    return;
  const size_t n = cpus->size();
  for (size_t i = 0; i < n; ++i) {
    const json& row = (*cells)[i];
    if (!row.is_array() || row.size() != n || !(*cpus)[i].is_number_integer()) return;
    std::vector<double> values;
    for (size_t k = 0; k < n; ++k)
      if (k != i && row[k].is_number() && row[k].get<double>() > 0)
        values.push_back(row[k].get<double>());
    if (!values.empty()) r.latency_row_ns[(*cpus)[i].get<int>()] = median_of(values);
  }
  // Per pair intervals: the widest one touching a CPU bounds how precise its row is.
  if (const json* pairs = at(*m, {"pairs"}); pairs && pairs->is_array())
    for (const json& p : *pairs) {
      const json* pc = at(p, {"cpus"});
      const json* ci = at(p, {"ci95_ns"});
      if (!pc || !ci || !pc->is_array() || !ci->is_number()) continue;
      for (const json& c : *pc)
        if (c.is_number_integer()) {
          double& w = r.latency_row_ci_ns[c.get<int>()];
          w = std::max(w, ci->get<double>());
        }
    }
}

void read_benches(const json& doc, fleet::HostRecord& r) {
  const json* benches = at(doc, {"benches"});
  if (!benches || !benches->is_array()) return;
  for (const json& b : *benches) {
    const std::string name = str(b, {"bench"});
    const json* variants = at(b, {"variants"});
    if (name.empty() || !variants || !variants->is_array()) continue;
    const json* hib = at(b, {"higher_is_better"});
    for (const json& v : *variants) {
      const json* median = at(v, {"median"});
      const json* available = at(v, {"available"});
      if (!median || !median->is_number() || (available && available->is_boolean() && !*available))
        continue;
      const std::string key = name + "/" + str(v, {"name"});
      r.bench_median[key] = median->get<double>();
      r.bench_higher_is_better[key] = hib && hib->is_boolean() && hib->get<bool>();
      r.bench_unit[key] = str(b, {"unit"});
    }
  }
}

// How the measurements were taken: the latency matrix's stability and the machine's state
// (issue 24). Either may sit at the top of the report or inside its latency part.
void read_conditions(const json& doc, fleet::HostRecord& r) {
  for (const json* st :
       {at(doc, {"latency", "stability"}), at(doc, {"latency", "matrix", "stability"})})
    if (st && st->is_object() && !str(*st, {"state"}).empty()) {
      r.stability = str(*st, {"state"});
      r.stability_reason = str(*st, {"reason"});
      const json* moved = at(*st, {"pairs_moved"});
      const json* checked = at(*st, {"pairs_checked"});
      if (r.stability_reason.empty() && moved && checked && moved->is_number_integer() &&
          checked->is_number_integer())
        r.stability_reason = std::to_string(moved->get<int>()) + " of " +
                             std::to_string(checked->get<int>()) + " pairs moved";
      break;
    }
  for (const json* ms : {at(doc, {"machine_state"}), at(doc, {"latency", "machine_state"})})
    if (ms && ms->is_object() && !str(*ms, {"verdict"}).empty()) {
      r.machine_verdict = machine_verdict_from_name(str(*ms, {"verdict"}));
      r.machine_summary = str(*ms, {"summary"});
      break;
    }
}

Result<fleet::HostRecord> parse_checked(const std::string& text, const std::string& file) {
  auto parsed = parse_json_text(text);
  if (!parsed) return Error::invalid(file + ": " + parsed.error().message);
  json doc = std::move(*parsed);
  if (!doc.is_object()) return Error::invalid(file + ": not a JSON object");
  if (str(doc, {"schema"}) != "threadmap.report/1")
    return Error::invalid(file + ": not a machine report (schema threadmap.report/1)");
  fleet::HostRecord r;
  r.file = file;
  r.host = str(doc, {"topology", "topology", "machine_infos", "HostName"});
  r.cpu_model = str(doc, {"topology", "topology", "cpu_model"});
  r.packages = count(doc, "packages");
  r.numa_nodes = count(doc, "numa_nodes");
  r.l3_domains = count(doc, "l3_caches");
  r.cores = count(doc, "cores");
  r.pus = count(doc, "pus");
  r.smt = r.cores > 0 && r.pus > r.cores;
  r.allowed_cpus = str(doc, {"topology", "topology", "allowed_cpus"});
  r.complete_cpus = str(doc, {"topology", "topology", "complete_cpus"});
  r.kernel = str(doc, {"topology", "topology", "machine_infos", "OSRelease"});
  // A document that only claims the schema (or a report whose topology could not be read) has
  // nothing to group or compare by: it is listed as unreadable, not as a host.
  if (r.pus <= 0 || r.complete_cpus.empty())
    return Error::invalid(file +
                          ": a threadmap.report/1 without a topology (no CPUs in "
                          "topology.topology): nothing to compare");
  read_latency(doc, r);
  read_benches(doc, r);
  read_conditions(doc, r);
  return r;
}

}  // namespace

Result<fleet::HostRecord> parse_host_record(const std::string& text, const std::string& file) {
  try {
    return parse_checked(text, file);
  } catch (const nlohmann::json::exception&) {
    return Error::invalid(file + ": a field has the wrong type (not a threadmap.report/1)");
  }
}

}  // namespace threadmap::render
