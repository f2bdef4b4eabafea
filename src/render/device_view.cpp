#include "src/render/device_view.hpp"

#include <fmt/format.h>

#include "src/render/report_html_util.hpp"
#include "src/render/text_table.hpp"

namespace threadmap::render {
namespace {

std::string names_of(const Device& d) {
  std::string out;
  for (const auto* list : {&d.netdevs, &d.rdma, &d.block})
    for (const std::string& n : *list) out += (out.empty() ? "" : " ") + n;
  if (out.empty())
    for (const std::string& n : d.os_names) out += (out.empty() ? "" : " ") + n;
  return out;
}

std::string vendor_model(const Device& d) {
  std::string vm =
      d.model.empty() ? fmt::format("[{:04x}:{:04x}]", d.vendor_id, d.device_id) : d.model;
  // The model usually starts with no vendor; a short vendor word makes the row readable.
  std::string vendor = d.vendor.substr(0, d.vendor.find(' '));
  return vendor.empty() || vm.find(vendor) != std::string::npos ? vm : vendor + " " + vm;
}

// What the index column cannot say: a partition, an APU, Level Zero tiles.
std::string shape(const Device& d) {
  std::string out;
  if (d.partition >= 0) out += fmt::format(" partition {}", d.partition);
  if (d.apu) out += " (APU)";
  if (d.tiles > 0) out += fmt::format(" {} tiles", d.tiles);
  return out;
}

std::string index_text(int i) { return i >= 0 ? std::to_string(i) : ""; }

int count(const DeviceInventory& inv, DeviceKind kind) {
  int n = 0;
  for (const Device& d : inv.devices) n += d.kind == kind;
  return n;
}

}  // namespace

std::string device_table_text(const DeviceInventory& inv) {
  if (inv.devices.empty())
    return "devices: none (the topology lists no GPU, NIC or NVMe drive; " + inv.sources + ")\n";
  TextTable table(
      {"device", "index>", "bus>", "PCI", "model", "node>", "local CPUs", "names / UUID"});
  for (const Device& d : inv.devices) {
    std::string names = names_of(d);
    if (!d.uuid.empty()) names += (names.empty() ? "" : " ") + d.uuid;
    if (!d.mig.empty()) names += fmt::format(" ({} MIG)", d.mig.size());
    table.add_row({device_kind_name(d.kind), index_text(d.index), index_text(d.bus_index), d.bus_id,
                   vendor_model(d) + shape(d),
                   d.numa_node >= 0 ? std::to_string(d.numa_node) : "none", d.cpus.to_list(),
                   names});
  }
  std::string out = "devices (" + inv.sources +
                    "; GPU index = the vendor runtime's (NVIDIA: PCI bus order; AMD: ROCm's "
                    "order; Intel: Level Zero cards in bus order), bus = PCI bus order, node = OS "
                    "number):\n";
  out += table.str();
  for (const std::string& note : inv.notes) out += "note: " + note + "\n";
  return out;
}

std::string device_table_html(const DeviceInventory& inv) {
  std::string out = "<h3>Devices</h3>\n";
  if (inv.devices.empty())
    return out + "<p>None: the topology lists no GPU, NIC or NVMe drive (" +
           html::escape(inv.sources) + ").</p>\n";
  std::vector<std::vector<std::string>> rows;
  for (const Device& d : inv.devices) {
    std::string names = names_of(d);
    if (!d.uuid.empty()) names += (names.empty() ? "" : " ") + d.uuid;
    rows.push_back(
        {device_kind_name(d.kind), index_text(d.index), d.bus_id, vendor_model(d) + shape(d),
         d.numa_node >= 0 ? std::to_string(d.numa_node) : "none", d.cpus.to_list(), names});
  }
  out += html::stacked_table(
      {"device", "index", "PCI", "model", "NUMA node", "local CPUs", "names"}, rows, {1, 4});
  out +=
      "<p>Source: " + html::escape(inv.sources) +
      ". GPU index = the vendor runtime's (NVIDIA: PCI bus order, nvidia-smi's; AMD: ROCm's order; "
      "Intel: Level Zero cards in bus order); NUMA node = OS number, none when the "
      "device hangs off several nodes. Use them as <code>gpu:N</code>, <code>nic:NAME</code>, "
      "<code>pci:BUSID</code> in CPU expressions (docs/gpu.md).</p>\n";
  if (!inv.notes.empty()) {
    out += "<ul class=\"notes\">\n";
    for (const std::string& note : inv.notes) out += "<li>" + html::escape(note) + "</li>\n";
    out += "</ul>\n";
  }
  return out;
}

std::string device_counts_text(const DeviceInventory& inv) {
  const int gpus = count(inv, DeviceKind::gpu), nics = count(inv, DeviceKind::nic),
            nvme = count(inv, DeviceKind::nvme);
  if (gpus + nics + nvme == 0) return "no GPU, NIC or NVMe device";
  return fmt::format("{} GPU{}, {} NIC{}, {} NVMe", gpus, gpus == 1 ? "" : "s", nics,
                     nics == 1 ? "" : "s", nvme);
}

nlohmann::json device_json(const Device& d) {
  using nlohmann::json;
  json mig = json::array();
  for (const GpuInstance& m : d.mig) mig.push_back({{"index", m.index}, {"uuid", m.uuid}});
  return {{"kind", device_kind_name(d.kind)},
          {"pci_bus_id", d.bus_id},
          {"class_id", fmt::format("{:04x}", d.class_id)},
          {"vendor_id", fmt::format("{:04x}", d.vendor_id)},
          {"device_id", fmt::format("{:04x}", d.device_id)},
          {"vendor", d.vendor},
          {"model", d.model},
          {"numa_node", d.numa_node >= 0 ? json(d.numa_node) : json(nullptr)},
          {"cpus", d.cpus.to_list()},
          {"index", d.index >= 0 ? json(d.index) : json(nullptr)},
          {"bus_index", d.bus_index >= 0 ? json(d.bus_index) : json(nullptr)},
          {"runtime_order", d.kind != DeviceKind::gpu ? json(nullptr)
                            : d.runtime_order.empty() ? json("unknown")
                                                      : json(d.runtime_order)},
          {"partition", d.partition >= 0 ? json(d.partition) : json(nullptr)},
          {"apu", d.apu},
          {"tiles", d.tiles > 0 ? json(d.tiles) : json(nullptr)},
          {"management_index", d.management_index >= 0 ? json(d.management_index) : json(nullptr)},
          {"uuid", d.uuid.empty() ? json(nullptr) : json(d.uuid)},
          {"mig", mig},
          {"netdevs", d.netdevs},
          {"rdma", d.rdma},
          {"block", d.block},
          {"os_names", d.os_names}};
}

void add_devices(nlohmann::json& doc, const DeviceInventory& inv) {
  nlohmann::json j = devices_json(inv);
  doc["devices"] = j["devices"];
  doc["device_sources"] = j["sources"];
  doc["device_notes"] = j["notes"];
}

nlohmann::json devices_json(const DeviceInventory& inv) {
  nlohmann::json list = nlohmann::json::array();
  for (const Device& d : inv.devices) list.push_back(device_json(d));
  return {{"sources", inv.sources}, {"devices", list}, {"notes", inv.notes}};
}

}  // namespace threadmap::render
