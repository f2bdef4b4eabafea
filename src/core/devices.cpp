// Devices from hwloc's I/O objects: every PCI device that is a GPU, a NIC or an NVMe drive, with
// its locality (the first non-I/O ancestor: where hwloc attached it from the kernel's
// local_cpus, or where the XML recorded it).
#include "src/core/devices.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "src/core/topology_state.hpp"

namespace threadmap {
namespace {

constexpr unsigned kNvidia = 0x10de;
constexpr unsigned kAmd = 0x1002;  // ATI's id, which AMD's GPUs carry
constexpr unsigned kIntel = 0x8086;

const char* info(hwloc_obj_t obj, const char* name) {
  const char* value = hwloc_obj_get_info_by_name(obj, name);
  return value && *value ? value : nullptr;
}

std::string known_vendor(unsigned id) {
  switch (id) {
    case kNvidia:
      return "NVIDIA Corporation";
    case kAmd:
      return "Advanced Micro Devices, Inc. [AMD/ATI]";
    case kIntel:
      return "Intel Corporation";
    case 0x15b3:
      return "Mellanox Technologies";
    case 0x14e4:
      return "Broadcom Inc.";
    case 0x1077:
      return "QLogic Corp.";
    case 0x144d:
      return "Samsung Electronics Co Ltd";
    default:
      return "";
  }
}

std::string bus_id_of(hwloc_obj_t obj) {
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x.%x", obj->attr->pcidev.domain,
                obj->attr->pcidev.bus, obj->attr->pcidev.dev, obj->attr->pcidev.func);
  return text;
}

// The single NUMA node (OS number) among those with CPUs in `nodeset` that meet `cpus`; -1 when
// there are none or several (a device attached above more than one node).
int single_node(hwloc_topology_t topo, hwloc_const_nodeset_t nodeset, hwloc_const_cpuset_t cpus) {
  int found = -1;
  for (hwloc_obj_t node = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, nullptr); node;
       node = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, node)) {
    if (!nodeset || !hwloc_bitmap_isset(nodeset, node->os_index)) continue;
    if (!node->cpuset || hwloc_bitmap_iszero(node->cpuset)) continue;  // memory-only (HBM, CXL)
    if (cpus && !hwloc_bitmap_intersects(node->cpuset, cpus)) continue;
    if (found >= 0) return -1;
    found = static_cast<int>(node->os_index);
  }
  return found;
}

// Every OS device under `obj`, depth first: Level Zero records a card's tiles (zeN.M) as OS
// devices under the card's (zeN).
void add_os_devices(hwloc_obj_t obj, Device& d) {
  for (hwloc_obj_t child = obj->io_first_child; child; child = child->next_sibling) {
    if (child->type != HWLOC_OBJ_OS_DEVICE || !child->name) continue;
    std::string name = child->name;
    d.os_names.push_back(name);
    switch (child->attr->osdev.type) {
      case HWLOC_OBJ_OSDEV_NETWORK:
        d.netdevs.push_back(name);
        break;
      case HWLOC_OBJ_OSDEV_OPENFABRICS:
        d.rdma.push_back(name);
        break;
      case HWLOC_OBJ_OSDEV_BLOCK:
        d.block.push_back(name);
        break;
      default:
        break;
    }
    unsigned card = 0, tile = 0;
    char tail = 0;
    if (std::sscanf(name.c_str(), "ze%u.%u%c", &card, &tile, &tail) == 2) ++d.tiles;
    if (d.uuid.empty()) {
      if (const char* uuid = info(child, "NVIDIAUUID")) d.uuid = uuid;
      // hwloc writes ROCm SMI's unique id as bare hex; ROCm's variables take "GPU-" + 16 digits.
      if (const char* uuid = info(child, "AMDUUID")) d.uuid = rocm_uuid(uuid);
    }
    if (d.model.empty())
      if (const char* model = info(child, "GPUModel")) d.model = model;
    if (d.vendor.empty())
      if (const char* vendor = info(child, "GPUVendor")) d.vendor = vendor;
    add_os_devices(child, d);
  }
}

Device device_of(hwloc_topology_t topo, hwloc_obj_t pci, DeviceKind kind) {
  Device d;
  d.kind = kind;
  d.bus_id = bus_id_of(pci);
  d.class_id = pci->attr->pcidev.class_id;
  d.vendor_id = pci->attr->pcidev.vendor_id;
  d.device_id = pci->attr->pcidev.device_id;
  if (const char* vendor = info(pci, "PCIVendor")) d.vendor = vendor;
  add_os_devices(pci, d);
  // hwloc's PCI device name first: an OS device's GPUModel (added above) is more precise.
  if (d.model.empty())
    if (const char* model = info(pci, "PCIDevice")) d.model = model;
  if (d.vendor.empty()) d.vendor = known_vendor(d.vendor_id);
  d.apu = kind == DeviceKind::gpu && is_apu(d.vendor_id, d.device_id);
  hwloc_obj_t parent = hwloc_get_non_io_ancestor_obj(topo, pci);
  if (parent && parent->cpuset) {
    hwloc_bitmap_copy(static_cast<hwloc_bitmap_t>(d.cpus.native_handle()), parent->cpuset);
    d.numa_node = single_node(topo, parent->nodeset, parent->cpuset);
  }
  for (hwloc_obj_t up = pci->parent; up && up->type == HWLOC_OBJ_BRIDGE; up = up->parent)
    d.pci_path.insert(d.pci_path.begin(), up->gp_index);
  for (auto* names : {&d.netdevs, &d.rdma, &d.block}) std::sort(names->begin(), names->end());
  return d;
}

// An AMD GPU split into partitions (MI300X CPX...) shows one ROCm SMI device per partition
// under its PCI function: each becomes a device of its own, with its own ROCm index and UUID.
std::vector<Device> split_partitions(hwloc_obj_t pci, const Device& whole) {
  std::vector<hwloc_obj_t> rsmi;
  for (hwloc_obj_t child = pci->io_first_child; child; child = child->next_sibling)
    if (child->type == HWLOC_OBJ_OS_DEVICE && child->name &&
        std::strncmp(child->name, "rsmi", 4) == 0)
      rsmi.push_back(child);
  if (whole.vendor_id != kAmd || rsmi.size() < 2) return {whole};
  std::vector<Device> out;
  for (size_t i = 0; i < rsmi.size(); ++i) {
    Device part = whole;
    part.partition = static_cast<int>(i);
    part.os_names.clear();
    for (const std::string& name : whole.os_names)
      if (name.rfind("rsmi", 0) != 0) part.os_names.push_back(name);
    part.os_names.push_back(rsmi[i]->name);
    const char* uuid = info(rsmi[i], "AMDUUID");
    part.uuid = uuid ? rocm_uuid(uuid) : "";
    out.push_back(std::move(part));
  }
  return out;
}

int kind_rank(DeviceKind kind) {
  return kind == DeviceKind::gpu ? 0 : kind == DeviceKind::nic ? 1 : 2;
}

}  // namespace

const char* device_kind_name(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::gpu:
      return "gpu";
    case DeviceKind::nic:
      return "nic";
    case DeviceKind::nvme:
      return "nvme";
  }
  return "?";
}

bool is_gpu_class(unsigned class_id, unsigned vendor_id) {
  // AMD's Instinct MI300X/MI300A/MI350 call themselves processing accelerators (class 0x12);
  // another vendor's 0x12 device (Gaudi, an FPGA) is not a GPU any runtime here drives.
  if ((class_id >> 8) == 0x12) return vendor_id == kAmd;
  return (class_id >> 8) == 0x03 &&
         (vendor_id == kNvidia || vendor_id == kAmd || vendor_id == kIntel);
}

std::string rocm_uuid(std::string_view hex) {
  if (hex.empty() || hex.size() > 16) return "";
  for (char c : hex)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return "";
  std::string digits(16 - hex.size(), '0');
  for (char c : hex) digits += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "GPU-" + digits;
}

// Network controllers, and InfiniBand adapters that still call themselves a serial bus (0x0c06).
bool is_nic_class(unsigned class_id) { return (class_id >> 8) == 0x02 || class_id == 0x0c06; }

bool is_nvme_class(unsigned class_id) { return class_id == 0x0108; }

std::string canonical_bus_id(std::string_view text) {
  std::string t(text);
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  char tail = 0;
  if (std::count(t.begin(), t.end(), ':') == 1) {
    if (std::sscanf(t.c_str(), "%2x:%2x.%1x%c", &bus, &dev, &fn, &tail) != 3) return "";
  } else if (std::sscanf(t.c_str(), "%8x:%2x:%2x.%1x%c", &domain, &bus, &dev, &fn, &tail) != 4) {
    return "";
  }
  for (char c : t)
    if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return "";
  if (dev > 0x1f || fn > 7) return "";
  char out[32];
  std::snprintf(out, sizeof out, "%04x:%02x:%02x.%x", domain, bus, dev, fn);
  return out;
}

std::vector<Device> devices_from_hwloc(const Topology& topo) {
  auto handle = static_cast<hwloc_topology_t>(topo.native_handle());
  std::vector<Device> out;
  for (hwloc_obj_t pci = hwloc_get_next_pcidev(handle, nullptr); pci;
       pci = hwloc_get_next_pcidev(handle, pci)) {
    const unsigned cls = pci->attr->pcidev.class_id;
    if (is_gpu_class(cls, pci->attr->pcidev.vendor_id))
      for (Device& d : split_partitions(pci, device_of(handle, pci, DeviceKind::gpu)))
        out.push_back(std::move(d));
    else if (is_nic_class(cls))
      out.push_back(device_of(handle, pci, DeviceKind::nic));
    else if (is_nvme_class(cls))
      out.push_back(device_of(handle, pci, DeviceKind::nvme));
  }
  std::sort(out.begin(), out.end(), [](const Device& a, const Device& b) {
    if (a.kind != b.kind) return kind_rank(a.kind) < kind_rank(b.kind);
    if (a.bus_id != b.bus_id) return a.bus_id < b.bus_id;
    return a.partition < b.partition;
  });
  number_gpus(out);
  return out;
}

std::vector<const Device*> compute_gpus(const std::vector<Device>& devices) {
  for (unsigned vendor : {kNvidia, kAmd, kIntel}) {
    std::vector<const Device*> out;
    for (const Device& d : devices)
      if (d.kind == DeviceKind::gpu && d.vendor_id == vendor) out.push_back(&d);
    std::stable_sort(out.begin(), out.end(),
                     [](const Device* a, const Device* b) { return a->index < b->index; });
    if (!out.empty()) return out;
  }
  return {};
}

}  // namespace threadmap
