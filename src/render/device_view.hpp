// Rendering a machine's devices (GPUs, NICs, NVMe drives): the table `topo` prints under the
// tree, the "devices" array of the topology JSON, and the counts of `topo --summary`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "src/core/devices.hpp"

namespace threadmap::render {

/// "devices (hwloc I/O objects + sysfs PCI):" and one row per device, then the notes; one line
/// saying there are none when the topology lists none.
std::string device_table_text(const DeviceInventory& inventory);
/// The report page's device table (<h3>Devices</h3>, a table, the notes as a list), or one line
/// saying there are none.
std::string device_table_html(const DeviceInventory& inventory);
/// "8 GPUs, 4 NICs, 2 NVMe" ("no GPU, NIC or NVMe device" when none).
std::string device_counts_text(const DeviceInventory& inventory);
/// One object per device (schema in docs/json.md, "threadmap.topology/1": devices).
nlohmann::json device_json(const Device& device);
/// Adds "devices", "device_sources" and "device_notes" to a topology document.
void add_devices(nlohmann::json& topology_document, const DeviceInventory& inventory);
/// {"sources": ..., "devices": [...], "notes": [...]}.
nlohmann::json devices_json(const DeviceInventory& inventory);

}  // namespace threadmap::render
