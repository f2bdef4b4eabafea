#include "src/render/gpu_plan_view.hpp"

#include <fmt/format.h>

#include "src/render/device_view.hpp"
#include "src/render/text_table.hpp"

namespace threadmap::render {
namespace {

std::string nic_name(const cluster::GpuPlacement& g) {
  if (!g.nic) return "none";
  if (!g.nic->rdma.empty()) return g.nic->rdma.front();
  return g.nic->netdevs.empty() ? g.nic->bus_id : g.nic->netdevs.front();
}

std::string nodes_text(const std::vector<int>& nodes) {
  std::string out;
  for (int n : nodes) out += (out.empty() ? "" : ",") + std::to_string(n);
  return out.empty() ? "unknown" : out;
}

}  // namespace

std::string gpu_ranks_text(const std::vector<cluster::GpuPlacement>& ranks) {
  TextTable table({"rank>", "GPU", "PCI", "model", "CPUs", "memory", "NIC"});
  for (size_t k = 0; k < ranks.size(); ++k) {
    const cluster::GpuPlacement& g = ranks[k];
    std::string index, bus, model;
    for (const Device& d : g.gpus) {
      index += (index.empty() ? "" : ",") + std::to_string(d.index);
      bus += (bus.empty() ? "" : ",") + d.bus_id;
      if (model.empty()) model = d.model;
    }
    table.add_row({std::to_string(k), index, bus, model, g.share.cpus.to_list(),
                   nodes_text(g.share.memory_nodes), nic_name(g)});
  }
  std::string out = table.str();
  for (size_t k = 0; k < ranks.size(); ++k) {
    out += fmt::format("rank {}: {}; CPUs: {}; NIC: {}\n", k, ranks[k].gpus_how, ranks[k].share.how,
                       ranks[k].nic_how);
    for (const std::string& note : ranks[k].notes) out += "  note: " + note + "\n";
  }
  return out;
}

nlohmann::json gpu_ranks_json(const std::vector<cluster::GpuPlacement>& ranks) {
  using nlohmann::json;
  json list = json::array();
  for (size_t k = 0; k < ranks.size(); ++k) {
    const cluster::GpuPlacement& g = ranks[k];
    json gpus = json::array();
    for (const Device& d : g.gpus) gpus.push_back(device_json(d));
    json env = json::object();
    for (const auto& [name, value] : g.set_env) env[name] = value;
    json nic = nullptr;
    if (g.nic) {
      nic = device_json(*g.nic);
      nic["why"] = g.nic_how;
    }
    list.push_back({{"rank", k},
                    {"cpus", g.share.cpus.to_list()},
                    {"memory_nodes", g.share.memory_nodes},
                    {"how", g.share.how},
                    {"gpus", gpus},
                    {"gpus_how", g.gpus_how},
                    {"nic", nic},
                    {"nic_how", g.nic_how},
                    {"environment", env},
                    {"notes", g.notes}});
  }
  return {{"schema", "threadmap.rank-shares/1"}, {"ranks", list}};
}

}  // namespace threadmap::render
