#include "src/cluster/gpu_findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

namespace threadmap::cluster {
namespace {

std::string gpu_names(const std::vector<RecordGpu>& gpus) {
  std::string out;
  for (const RecordGpu& g : gpus)
    out += (out.empty() ? "" : ", ") + fmt::format("GPU {} ({})", g.index, g.bus_id);
  return out;
}

void cpu_finding(const LoadedRecord& loaded, const std::map<int, StartupWindow>& startup,
                 const JobRules& rules, const std::string& host, std::vector<JobFinding>& out) {
  const RankRecord& r = loaded.record;
  CpuSet near;
  for (const RecordGpu& g : r.gpus) near |= g.cpus;
  auto window = startup.find(r.rank);
  const double after = window == startup.end() ? -1e300 : window->second.end_s;
  double outside = 0;
  CpuSet where;
  for (const RecordThread& t : loaded.threads)
    for (const RecordSpan& s : t.spans) {
      const double begin = std::max(s.start_s, after);
      if (s.end_s <= begin || near.contains(s.cpu) || !runnable(s, rules)) continue;
      outside += s.end_s - begin;
      where.add(s.cpu);
    }
  if (outside > rules.min_seconds && !near.empty())
    out.push_back(
        {"gpu_cpus", host, r.rank, outside,
         fmt::format("rank {}'s threads ran {:.2f} s (thread-seconds, sampled) on CPUs "
                     "{}, not local to its {} (CPUs {})",
                     r.rank, outside, where.to_list(), gpu_names(r.gpus), near.to_list())});
}

void page_finding(const RankRecord& r, const JobRules& rules, const std::string& host,
                  std::vector<JobFinding>& out) {
  std::set<int> gpu_nodes;
  for (const RecordGpu& g : r.gpus)
    if (g.numa_node >= 0) gpu_nodes.insert(g.numa_node);
  if (gpu_nodes.empty() || r.numa_nodes.size() < 2) return;  // nothing to be far from
  double total = 0, far = 0;
  std::set<int> far_nodes;
  for (const auto& [node, bytes] : record_page_bytes(r.watch_json)) {
    total += bytes;
    if (!gpu_nodes.count(node) && bytes > 0) {
      far += bytes;
      far_nodes.insert(node);
    }
  }
  if (total <= 0 || far < rules.min_far_bytes || far <= rules.far_pages_share * total) return;
  out.push_back({"gpu_pages", host, r.rank, 0,
                 fmt::format("rank {} had {:.0f} MiB ({:.0f}% of its pages) on NUMA node(s) {}, "
                             "not its GPU's node {} (more than {:.0f}% and {:.0f} MiB)",
                             r.rank, far / (1 << 20), 100 * far / total, fmt::join(far_nodes, ","),
                             fmt::join(gpu_nodes, ","), 100 * rules.far_pages_share,
                             rules.min_far_bytes / (1 << 20))});
}

}  // namespace

std::map<int, double> record_page_bytes(const std::string& watch_json) {
  std::map<int, double> out;
  if (watch_json.empty()) return out;
  nlohmann::json doc = nlohmann::json::parse(watch_json, nullptr, /*exceptions=*/false);
  if (!doc.is_object() || !doc.contains("numa_pages") || !doc["numa_pages"].is_object()) return out;
  const nlohmann::json& pages = doc["numa_pages"];
  for (const char* when : {"end", "start"}) {
    if (!pages.contains(when) || !pages[when].is_object() || !pages[when].contains("nodes") ||
        !pages[when]["nodes"].is_array())
      continue;
    for (const nlohmann::json& n : pages[when]["nodes"])
      if (n.is_object() && n.contains("node") && n["node"].is_number_integer() &&
          n.contains("bytes") && n["bytes"].is_number())
        out[n["node"].get<int>()] += n["bytes"].get<double>();
    if (!out.empty()) break;
  }
  return out;
}

void add_gpu_findings(const std::string& host, const std::vector<const LoadedRecord*>& records,
                      const std::map<int, StartupWindow>& startup, const JobRules& rules,
                      std::vector<JobFinding>& findings) {
  std::map<std::string, std::vector<int>> drivers;  // bus id -> ranks
  std::map<std::string, RecordGpu> host_gpus;
  int ranks = 0;
  bool any = false;
  for (const LoadedRecord* loaded : records) {
    const RankRecord& r = loaded->record;
    ranks = std::max(ranks, r.ranks);
    for (const RecordGpu& g : r.host_gpus) host_gpus[g.bus_id] = g;
    if (r.gpus.empty()) continue;
    any = true;
    for (const RecordGpu& g : r.gpus) drivers[g.bus_id].push_back(r.rank);
    if (!r.watch_json.empty()) {
      cpu_finding(*loaded, startup, rules, host, findings);
      page_finding(r, rules, host, findings);
    }
  }
  if (!any) return;
  // More ranks than GPUs on the host: sharing was the plan (run --ranks shares GPUs by locality
  // then), so the finding says so instead of reading as a mistake.
  const bool outnumbered = !host_gpus.empty() && ranks > static_cast<int>(host_gpus.size());
  for (const auto& [bus, list] : drivers)
    if (list.size() > 1)
      findings.push_back(
          {"gpu_shared", host, list[1], 0,
           fmt::format("ranks {} all drive the GPU at {}{}", fmt::join(list, ","), bus,
                       outnumbered
                           ? fmt::format(" ({} ranks on this host's {} GPUs: shared by "
                                         "design; NVIDIA MPS lets their kernels run at once)",
                                         ranks, host_gpus.size())
                           : std::string())});
  if (static_cast<int>(records.size()) < ranks) return;  // the missing ranks may drive them
  std::vector<std::string> idle;
  for (const auto& [bus, g] : host_gpus)
    if (!drivers.count(bus)) idle.push_back(fmt::format("GPU {} ({})", g.index, bus));
  if (!idle.empty())
    findings.push_back({"gpu_idle", host, -1, 0,
                        fmt::format("{} of this host: no rank drives {}", fmt::join(idle, ", "),
                                    idle.size() == 1 ? "it" : "them")});
}

}  // namespace threadmap::cluster
