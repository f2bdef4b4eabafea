// A machine's devices with every source that can speak about them: hwloc's I/O objects, and on
// this machine the kernel's sysfs PCI facts (compared, disagreements said) and the GPU
// management libraries (merged by bus id).
#include <algorithm>
#include <cctype>
#include <cstdio>

#include "src/core/devices.hpp"
#include "src/os/gpu_device_files.hpp"
#include "src/os/gpu_management.hpp"
#include "src/os/pci_sysfs.hpp"

namespace threadmap {
namespace {

std::string kind_word(const Device& d) {
  return d.kind == DeviceKind::gpu ? "GPU" : d.kind == DeviceKind::nic ? "NIC" : "NVMe drive";
}

std::string fmt_hex(unsigned long long v) {
  char text[24];
  std::snprintf(text, sizeof text, "%llx", v);
  return text;
}

std::string node_text(int node) { return node < 0 ? "none" : std::to_string(node); }

const char* kind_of_class(unsigned class_id, unsigned vendor_id) {
  if (is_gpu_class(class_id, vendor_id)) return "GPU";
  if (is_nic_class(class_id)) return "NIC";
  if (is_nvme_class(class_id)) return "NVMe drive";
  return nullptr;
}

std::vector<ManagedGpuView> view_of(const os::ManagementReport& report) {
  std::vector<ManagedGpuView> out;
  for (const os::ManagedGpu& g : report.gpus) {
    ManagedGpuView v{g.bus_id, g.index, g.uuid, g.name, {}};
    for (const os::MigInstance& m : g.mig) v.mig.push_back({m.index, m.uuid});
    out.push_back(std::move(v));
  }
  return out;
}

// ROCm's own numbering on this machine: the KFD topology (ROCr enumerates its agents in node
// order), else ROCm SMI's indexes.
void rocm_order_here(std::vector<Device>& devices, const os::ManagementReport* smi,
                     std::string& sources, std::vector<std::string>& notes) {
  auto kfd = os::read_kfd_gpus();
  if (kfd && !kfd->empty()) {
    std::vector<std::pair<std::string, std::string>> nodes;
    for (const os::KfdGpu& g : *kfd)
      nodes.emplace_back(g.bus_id, g.unique_id ? rocm_uuid(fmt_hex(g.unique_id)) : "");
    split_amd_partitions(devices, nodes);
    std::vector<std::pair<std::string, int>> order;
    for (const os::KfdGpu& g : *kfd) order.emplace_back(g.bus_id, g.node);
    if (apply_rocm_order(devices, order, "KFD topology", notes)) {
      sources += " + KFD topology";
      for (Device& d : devices)
        for (const os::KfdGpu& g : *kfd)
          if (d.kind == DeviceKind::gpu && d.bus_id == g.bus_id && d.uuid.empty() && g.unique_id)
            d.uuid = rocm_uuid(fmt_hex(g.unique_id));
      return;
    }
  }
  if (smi && smi->loaded) {
    std::vector<std::pair<std::string, int>> order;
    for (const os::ManagedGpu& g : smi->gpus) order.emplace_back(g.bus_id, g.index);
    apply_rocm_order(devices, order, "ROCm SMI", notes);
  }
}

// Where ROCm's numbering differs from the bus, or is not known at all, the table says so.
void order_notes(const std::vector<Device>& devices, std::vector<std::string>& notes) {
  bool unknown = false;
  int position = 0;  // place in bus order, partitions counted (devices are in bus order)
  for (const Device& d : devices) {
    if (d.kind != DeviceKind::gpu || d.vendor_id != 0x1002) continue;
    unknown = unknown || d.runtime_order.empty();
    if (!d.runtime_order.empty() && d.index != position)
      notes.push_back(
          "GPU " + std::to_string(d.index) + " at " + d.bus_id +
          (d.partition >= 0 ? " (partition " + std::to_string(d.partition) + ")" : std::string()) +
          " is ROCm's " + std::to_string(d.index) + " (" + d.runtime_order + ") but would be " +
          std::to_string(position) +
          " in PCI bus order: gpu:N and the ROCm/HIP variables use ROCm's");
    if (d.partition == 1)
      notes.push_back("the GPU at " + d.bus_id +
                      " is split into partitions, each a device of its own (a rank can be given "
                      "one)");
    if (d.apu && d.partition <= 0)
      notes.push_back("GPU " + std::to_string(d.index) + " at " + d.bus_id +
                      " is an APU (MI300A): it shares its package and memory with the CPUs "
                      "near it (" +
                      d.cpus.to_list() + "), which are its rank's");
    ++position;
  }
  if (unknown)
    notes.push_back(
        "ROCm's order of the AMD GPUs is not known here (no rsmiN/OpenCL names recorded, no "
        "KFD topology or ROCm SMI): indexes are PCI bus order, which ROCm need not follow; "
        "name the GPUs by UUID (gpu:GPU-...) or pci:BUSID");
}

}  // namespace

std::vector<std::string> compare_with_sysfs(const std::vector<Device>& devices,
                                            const std::vector<PciFactsView>& sysfs, int nodes) {
  std::vector<std::string> notes;
  for (const PciFactsView& f : sysfs) {
    const char* kind = kind_of_class(f.class_id, f.vendor_id);
    if (!kind) continue;
    auto d = std::find_if(devices.begin(), devices.end(),
                          [&](const Device& x) { return x.bus_id == f.bus_id; });
    if (d == devices.end()) {
      notes.push_back(f.bus_id + ": sysfs lists a " + kind + " (numa_node " +
                      node_text(f.numa_node) + ") that hwloc's topology does not");
      continue;
    }
    // A firmware "-1" on a one-node machine and hwloc's node 0 say the same thing.
    const bool same_node =
        f.numa_node == d->numa_node || (nodes <= 1 && (f.numa_node < 0 || d->numa_node < 0));
    if (!same_node)
      notes.push_back(f.bus_id + ": sysfs numa_node says " + node_text(f.numa_node) +
                      ", hwloc places the " + kind_word(*d) + " on node " +
                      node_text(d->numa_node) + " (its local CPUs " + d->cpus.to_list() +
                      "); placement follows hwloc");
    if (!f.local_cpus.empty()) {
      auto listed = CpuSet::parse_list(f.local_cpus);
      if (listed && *listed != d->cpus)
        notes.push_back(f.bus_id + ": sysfs local_cpulist says " + listed->to_list() +
                        ", hwloc attaches the " + kind_word(*d) + " where its CPUs are " +
                        d->cpus.to_list() + "; placement follows hwloc");
    }
  }
  for (const Device& d : devices) {
    bool seen = std::any_of(sysfs.begin(), sysfs.end(),
                            [&](const PciFactsView& f) { return f.bus_id == d.bus_id; });
    if (!seen)
      notes.push_back(d.bus_id + ": hwloc lists a " + kind_word(d) + " that sysfs does not");
  }
  return notes;
}

void merge_management(std::vector<Device>& devices, const std::vector<ManagedGpuView>& gpus,
                      const std::string& library, std::vector<std::string>& notes) {
  for (const ManagedGpuView& g : gpus) {
    auto d = std::find_if(devices.begin(), devices.end(), [&](const Device& x) {
      return x.kind == DeviceKind::gpu && x.bus_id == g.bus_id;
    });
    if (d == devices.end()) {
      notes.push_back(library + " lists GPU " + std::to_string(g.index) + " at " +
                      (g.bus_id.empty() ? std::string("an unknown bus id") : g.bus_id) +
                      ", which hwloc's topology does not");
      continue;
    }
    d->management_index = g.index;
    if (!g.uuid.empty()) d->uuid = g.uuid;
    if (!g.name.empty() && d->model.empty()) d->model = g.name;
    d->mig = g.mig;
    if (g.index != d->index)
      notes.push_back(library + " numbers the GPU at " + d->bus_id + " " + std::to_string(g.index) +
                      ", threadmap " + std::to_string(d->index) + " (" +
                      (d->runtime_order.empty() ? std::string("PCI bus order") : d->runtime_order) +
                      "); gpu:N and --gpus use threadmap's");
  }
}

DeviceInventory device_inventory(const Topology& topo, bool management) {
  DeviceInventory inv;
  inv.devices = devices_from_hwloc(topo);
  inv.sources = "hwloc I/O objects";
  if (!topo.is_this_machine()) {
    order_notes(inv.devices, inv.notes);
    return inv;
  }
  auto sysfs = os::read_pci_devices();
  if (sysfs) {
    std::vector<PciFactsView> view;
    for (const os::PciDeviceFacts& f : *sysfs)
      view.push_back({f.bus_id, f.class_id, f.vendor_id, f.numa_node, f.local_cpus});
    auto notes = compare_with_sysfs(inv.devices, view, topo.counts().numa_nodes);
    inv.notes.insert(inv.notes.end(), notes.begin(), notes.end());
    inv.sources += " + sysfs PCI";
  } else {
    inv.notes.push_back("sysfs PCI devices not read: " + sysfs.error().message);
  }
  auto has_vendor = [&](unsigned vendor) {
    return std::any_of(inv.devices.begin(), inv.devices.end(), [&](const Device& d) {
      return d.kind == DeviceKind::gpu && d.vendor_id == vendor;
    });
  };
  os::ManagementReport smi;
  // Asked only where their GPUs are: opening NVML costs up to a second.
  for (auto [vendor, query] :
       {std::pair{0x10deu, &os::query_nvml}, {0x1002u, &os::query_rocm_smi}}) {
    if (!management || !has_vendor(vendor)) continue;
    os::ManagementReport report = query();
    if (!report.loaded) {
      inv.notes.push_back(report.library + " not used: " + report.why_not);
      continue;
    }
    merge_management(inv.devices, view_of(report), report.library, inv.notes);
    inv.sources += " + " + report.library;
    if (vendor == 0x1002u) smi = std::move(report);
  }
  if (has_vendor(0x1002u)) rocm_order_here(inv.devices, &smi, inv.sources, inv.notes);
  split_mig_instances(inv.devices);
  order_notes(inv.devices, inv.notes);
  return inv;
}

}  // namespace threadmap

namespace threadmap {

Result<CpuSet> device_cpus(const Topology& topo, std::string_view term) {
  std::vector<Device> devices = devices_from_hwloc(topo);
  // On this machine ROCm's order may come from the KFD topology alone.
  const bool amd = std::any_of(devices.begin(), devices.end(), [](const Device& d) {
    return d.kind == DeviceKind::gpu && d.vendor_id == 0x1002 && d.runtime_order.empty();
  });
  if (amd && topo.is_this_machine()) {
    std::string sources;
    std::vector<std::string> notes;
    rocm_order_here(devices, nullptr, sources, notes);
  }
  auto found = find_device(devices, term);
  // A UUID only the management library knows (a live machine; hwloc rarely records UUIDs).
  const bool uuid_term = term.size() > 4 && !std::isdigit(static_cast<unsigned char>(term[4])) &&
                         (term[0] == 'g' || term[0] == 'G');
  if (!found && uuid_term && topo.is_this_machine()) {
    DeviceInventory inv = device_inventory(topo, /*management=*/true);
    auto again = find_device(inv.devices, term);
    if (again) return (*again)->cpus;
    return again.error();
  }
  if (!found) return found.error();
  return (*found)->cpus;
}

}  // namespace threadmap
