#include "src/render/cache_stats_json.hpp"

namespace threadmap::render {

nlohmann::json cache_stats_json(const apply::CacheStatsSummary& summary) {
  nlohmann::json out;
  out["creates"] = summary.creates();
  out["from_cache"] = summary.from_cache;
  out["from_system"] = summary.from_system;
  out["bypassed"] = summary.bypassed;
  const auto reuse = summary.reuse();
  out["reuse"] = reuse ? nlohmann::json(*reuse) : nlohmann::json(nullptr);
  out["retired"] = nlohmann::json::array();
  for (const auto& r : summary.retired)
    out["retired"].push_back({{"cause", r.cause}, {"threads", r.threads}});
  out["processes"] = nlohmann::json::array();
  for (const auto& p : summary.processes)
    out["processes"].push_back({{"pid", p.pid},
                                {"ppid", p.ppid},
                                {"comm", p.comm},
                                {"creates", p.creates()},
                                {"from_cache", p.from_cache},
                                {"from_system", p.from_system},
                                {"bypassed", p.bypassed},
                                {"final", p.final}});
  out["unfinished"] = summary.unfinished;
  out["running"] = summary.running;
  out["unread_lines"] = summary.unread_lines;
  out["evidence"] = "counted by the thread cache in each process (TM_CACHE_STATS)";
  return out;
}

}  // namespace threadmap::render
