#include "src/cluster/rank_record.hpp"

#include <cctype>
#include <nlohmann/json.hpp>

#include "src/core/json_text.hpp"

namespace threadmap::cluster {

std::string record_file_name(const std::string& host, int rank) {
  std::string safe;
  for (char c : host) {
    const bool keep =
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    safe.push_back(keep ? c : '_');
  }
  if (safe.empty() || safe == "." || safe == "..") safe = "_" + safe;
  return safe + "." + std::to_string(rank) + ".json";
}

const char* share_source_name(ShareSource source) {
  switch (source) {
    case ShareSource::split:
      return "split";
    case ShareSource::launcher:
      return "launcher";
    case ShareSource::explicit_:
      return "explicit";
  }
  return "split";
}

namespace {

using nlohmann::json;

json cpu_lists(const std::vector<CpuSet>& sets) {
  json out = json::array();
  for (const CpuSet& s : sets) out.push_back(s.to_list());
  return out;
}

Result<CpuSet> cpus_at(const json& doc, const char* key, const std::string& source) {
  if (!doc.contains(key) || !doc[key].is_string())
    return Error::invalid(source + ": '" + key + "' is missing or not a CPU list string");
  const std::string text = doc[key].get<std::string>();
  if (text.empty()) return CpuSet();
  auto set = CpuSet::parse_list(text);
  if (!set) return Error::invalid(source + ": bad CPU list '" + text + "' in '" + key + "'");
  return *set;
}

Result<int> int_at(const json& doc, const char* key, const std::string& source) {
  if (!doc.contains(key) || !doc[key].is_number_integer())
    return Error::invalid(source + ": '" + key + "' is missing or not an integer");
  return doc[key].get<int>();
}

json gpus_json(const std::vector<RecordGpu>& gpus) {
  json out = json::array();
  for (const RecordGpu& g : gpus)
    out.push_back({{"pci_bus_id", g.bus_id},
                   {"index", g.index},
                   {"model", g.model},
                   {"uuid", g.uuid},
                   {"numa_node", g.numa_node},
                   {"cpus", g.cpus.to_list()}});
  return out;
}

// Records written before --gpus have no GPU keys: read as none.
Result<std::vector<RecordGpu>> gpus_at(const json& doc, const char* key,
                                       const std::string& source) {
  std::vector<RecordGpu> out;
  if (!doc.contains(key)) return out;
  if (!doc[key].is_array()) return Error::invalid(source + ": '" + key + "' is not an array");
  for (const json& g : doc[key]) {
    if (!g.is_object() || !g.contains("pci_bus_id") || !g["pci_bus_id"].is_string())
      return Error::invalid(source + ": bad entry in '" + key + "'");
    auto cpus = cpus_at(g, "cpus", source);
    if (!cpus) return cpus.error();
    out.push_back({g["pci_bus_id"].get<std::string>(), g.value("index", -1), g.value("model", ""),
                   g.value("uuid", ""), g.value("numa_node", -1), *cpus});
  }
  return out;
}

}  // namespace

std::string rank_record_to_json(const RankRecord& r) {
  json doc;
  doc["schema"] = "threadmap.rank/1";
  doc["host"] = r.host;
  doc["rank"] = r.rank;
  doc["ranks"] = r.ranks;
  doc["global_rank"] = r.global_rank;
  doc["launcher"] = r.launcher;
  doc["share_source"] = share_source_name(r.share_source);
  doc["share"] = r.share.to_list();
  doc["memory_nodes"] = r.memory_nodes;
  doc["allowed"] = r.allowed.to_list();
  doc["cores"] = cpu_lists(r.cores);
  json nodes = json::array();
  for (const RecordNumaNode& n : r.numa_nodes)
    nodes.push_back({{"os_index", n.os_index}, {"cpus", n.cpus.to_list()}});
  doc["numa_nodes"] = nodes;
  doc["exit_status"] = r.exit_status;
  doc["gpus"] = gpus_json(r.gpus);
  doc["host_gpus"] = gpus_json(r.host_gpus);
  doc["gpus_how"] = r.gpus_how;
  doc["nic"] = r.nic;
  doc["watch"] = r.watch_json.empty() ? json(nullptr)
                                      : json::parse(r.watch_json, nullptr, /*exceptions=*/false);
  if (doc["watch"].is_discarded()) doc["watch"] = nullptr;
  doc["watch_error"] = r.watch_error;
  return doc.dump(2) + "\n";
}

namespace {

// The memory nodes, cores and NUMA nodes the rank saw.
Status read_node_layout(const json& doc, const std::string& source, RankRecord& r) {
  if (doc.contains("memory_nodes") && doc["memory_nodes"].is_array())
    for (const json& n : doc["memory_nodes"])
      if (n.is_number_integer()) r.memory_nodes.push_back(n.get<int>());
  if (doc.contains("cores") && doc["cores"].is_array())
    for (const json& c : doc["cores"]) {
      if (!c.is_string()) return Error::invalid(source + ": bad entry in 'cores'");
      auto set = CpuSet::parse_list(c.get<std::string>());
      if (!set) return Error::invalid(source + ": bad entry in 'cores'");
      r.cores.push_back(*set);
    }
  if (doc.contains("numa_nodes") && doc["numa_nodes"].is_array())
    for (const json& n : doc["numa_nodes"]) {
      if (!n.is_object() || !n.contains("os_index") || !n["os_index"].is_number_integer())
        return Error::invalid(source + ": bad entry in 'numa_nodes'");
      auto cpus = cpus_at(n, "cpus", source);
      if (!cpus) return cpus.error();
      r.numa_nodes.push_back({n["os_index"].get<int>(), *cpus});
    }
  return Status{};
}

// The watch document inside the record: kept whole, and its threads' spans read for `job`.
void read_watch(const json& w, LoadedRecord& out) {
  out.record.watch_json = w.dump();
  out.pid = w.value("pid", 0);
  if (!w.contains("threads") || !w["threads"].is_array()) return;
  for (const json& t : w["threads"]) {
    if (!t.is_object()) continue;
    RecordThread thread;
    thread.tid = t.value("tid", 0);
    thread.name = t.value("name", "");
    thread.migrations = t.value("migrations", 0);
    if (t.contains("spans") && t["spans"].is_array())
      for (const json& sp : t["spans"]) {
        if (!sp.is_object() || !sp.contains("cpu") || !sp["cpu"].is_number_integer()) continue;
        thread.spans.push_back({sp.value("start_s", 0.0), sp.value("end_s", 0.0),
                                sp["cpu"].get<int>(), sp.value("cpu_s", -1.0),
                                sp.value("wait_s", -1.0)});
      }
    out.threads.push_back(std::move(thread));
  }
}

Result<LoadedRecord> parse_unchecked(const std::string& text, const std::string& source) {
  auto parsed = parse_json_text(text);
  if (!parsed) return Error::invalid(source + ": " + parsed.error().message);
  json doc = std::move(*parsed);
  if (!doc.is_object()) return Error::invalid(source + ": not a JSON object");
  if (!doc.contains("schema") || doc["schema"] != "threadmap.rank/1")
    return Error::invalid(source + ": not a rank record (schema threadmap.rank/1)");
  LoadedRecord out;
  out.file = source;
  RankRecord& r = out.record;
  if (!doc.contains("host") || !doc["host"].is_string())
    return Error::invalid(source + ": 'host' is missing or not a string");
  r.host = doc["host"].get<std::string>();
  for (auto [key, field] : {std::pair{"rank", &r.rank},
                            {"ranks", &r.ranks},
                            {"global_rank", &r.global_rank},
                            {"exit_status", &r.exit_status}}) {
    auto v = int_at(doc, key, source);
    if (!v) return v.error();
    *field = *v;
  }
  if (r.ranks < 1 || r.rank < 0 || r.rank >= r.ranks)
    return Error::invalid(source + ": rank " + std::to_string(r.rank) + " of " +
                          std::to_string(r.ranks) + " is out of range");
  r.launcher = doc.value("launcher", "");
  const std::string src = doc.value("share_source", "split");
  r.share_source = src == "launcher"   ? ShareSource::launcher
                   : src == "explicit" ? ShareSource::explicit_
                                       : ShareSource::split;
  auto share = cpus_at(doc, "share", source);
  if (!share) return share.error();
  r.share = *share;
  auto allowed = cpus_at(doc, "allowed", source);
  if (!allowed) return allowed.error();
  r.allowed = *allowed;
  if (Status st = read_node_layout(doc, source, r); !st) return st.error();
  for (auto [key, field] : {std::pair{"gpus", &r.gpus}, {"host_gpus", &r.host_gpus}}) {
    auto gpus = gpus_at(doc, key, source);
    if (!gpus) return gpus.error();
    *field = std::move(*gpus);
  }
  r.gpus_how = doc.value("gpus_how", "");
  r.nic = doc.value("nic", "");
  r.watch_error = doc.value("watch_error", "");
  if (doc.contains("watch") && doc["watch"].is_object()) {
    read_watch(doc["watch"], out);
  } else if (r.watch_error.empty()) {
    r.watch_error = "the record has no watch document";
  }
  return out;
}

}  // namespace

Result<LoadedRecord> parse_rank_record(const std::string& text, const std::string& source) {
  try {
    return parse_unchecked(text, source);
  } catch (const nlohmann::json::exception&) {
    // A field of the wrong type deep inside (e.g. a string where a number belongs): say which
    // file, not the library's internal message.
    return Error::invalid(source + ": a field has the wrong type (not a threadmap.rank/1 record)");
  }
}

}  // namespace threadmap::cluster
