// The reader of the machine report (threadmap.report/1, written by render/report_json): what
// `threadmap fleet` compares about one host. Parts a report lacks (no latency, no benches, an
// older report) are left unknown, not refused; the report's own writer is tested against this
// reader (tests/unit/report/report_json_test.cpp).
#include <algorithm>
#include <nlohmann/json.hpp>

#include "src/core/json_text.hpp"
#include "src/core/sample_stats.hpp"
#include "src/fleet/host_record.hpp"

namespace threadmap::fleet {
namespace {

using nlohmann::json;

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

void read_latency(const json& doc, HostRecord& r) {
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
    if (!values.empty()) r.latency_row_ns[(*cpus)[i].get<int>()] = median(values);
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

void read_benches(const json& doc, HostRecord& r) {
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
// Either may sit at the top of the report or inside its latency part.
void read_conditions(const json& doc, HostRecord& r) {
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

Result<HostRecord> parse_checked(const std::string& text, const std::string& file) {
  auto parsed = parse_json_text(text);
  if (!parsed) return Error::invalid(file + ": " + parsed.error().message);
  json doc = std::move(*parsed);
  if (!doc.is_object()) return Error::invalid(file + ": not a JSON object");
  if (str(doc, {"schema"}) != "threadmap.report/1")
    return Error::invalid(file + ": not a machine report (schema threadmap.report/1)");
  HostRecord r;
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
  r.allowed_reason = str(doc, {"binding", "finding"});
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

Result<HostRecord> parse_host_record(const std::string& text, const std::string& file) {
  try {
    return parse_checked(text, file);
  } catch (const nlohmann::json::exception&) {
    return Error::invalid(file + ": a field has the wrong type (not a threadmap.report/1)");
  }
}

}  // namespace threadmap::fleet
