#include "src/core/nic_facts.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cstdio>

#include "src/os/nic_speed.hpp"

namespace threadmap {
namespace {

// 1 GbE server parts, by PCI vendor and device id (the ids their datasheets and the kernel's
// igb/tg3/e1000e drivers list): BMC-shared and management ports on GPU servers.
struct GigabitPart {
  unsigned vendor, device;
  const char* name;
};
constexpr GigabitPart kGigabitParts[] = {
    {0x8086, 0x1521, "Intel I350"},       {0x8086, 0x1522, "Intel I350"},
    {0x8086, 0x1523, "Intel I350"},       {0x8086, 0x1524, "Intel I350"},
    {0x8086, 0x1533, "Intel I210"},       {0x8086, 0x1536, "Intel I210"},
    {0x8086, 0x1537, "Intel I210"},       {0x8086, 0x1538, "Intel I210"},
    {0x8086, 0x157b, "Intel I210"},       {0x8086, 0x157c, "Intel I210"},
    {0x8086, 0x1539, "Intel I211"},       {0x8086, 0x10d3, "Intel 82574L"},
    {0x8086, 0x150e, "Intel 82580"},      {0x8086, 0x10c9, "Intel 82576"},
    {0x14e4, 0x1656, "Broadcom BCM5718"}, {0x14e4, 0x1657, "Broadcom BCM5719"},
    {0x14e4, 0x165f, "Broadcom BCM5720"}, {0x14e4, 0x165a, "Broadcom BCM5722"},
};

constexpr unsigned kAmazon = 0x1d0f;
constexpr unsigned kHpeCray = 0x17db;  // Cassini, the Slingshot NIC

const char* gigabit_part(const Device& nic) {
  for (const GigabitPart& p : kGigabitParts)
    if (p.vendor == nic.vendor_id && p.device == nic.device_id) return p.name;
  return nullptr;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// EFA: Amazon's device ids 0xefa0-0xefa3, or an RDMA device the efa driver named.
bool is_efa(const Device& nic) {
  if (nic.vendor_id == kAmazon && (nic.device_id & 0xfff0) == 0xefa0) return true;
  return std::any_of(nic.rdma.begin(), nic.rdma.end(),
                     [](const std::string& n) { return starts_with(n, "efa"); });
}

std::string speed_text(long mbps) {
  char out[32];
  if (mbps % 1000 == 0)
    std::snprintf(out, sizeof out, "%ld Gb/s", mbps / 1000);
  else
    std::snprintf(out, sizeof out, "%.1f Gb/s", static_cast<double>(mbps) / 1000);
  return out;
}

NicTransport transport_of(const Device& nic, const NicEvidence& ev, std::string& why) {
  if (ev.slingshot || nic.vendor_id == kHpeCray) {
    why =
        "Slingshot (" + std::string(ev.slingshot ? "hwloc subtype Slingshot" : "HPE Cassini") + ")";
    return NicTransport::slingshot;
  }
  if (is_efa(nic)) {
    why =
        "AWS EFA (PCI " + std::string(nic.vendor_id == kAmazon ? "1d0f:efa*" : "efa device") + ")";
    return NicTransport::efa;
  }
  if (!nic.rdma.empty()) {
    const std::string verbs = "verbs device " + nic.rdma.front();
    if (ev.link_layer == "InfiniBand" || (ev.link_layer.empty() && nic.class_id == 0x0207)) {
      why = verbs + (ev.link_layer.empty() ? ", PCI class InfiniBand" : ", link layer InfiniBand");
      return NicTransport::infiniband;
    }
    if (ev.link_layer == "Ethernet") {
      why = verbs + ", link layer Ethernet (RoCE)";
      return NicTransport::roce;
    }
    why = verbs + " (InfiniBand or RoCE: link layer unknown)";
    return NicTransport::verbs;
  }
  why = "Ethernet (no RDMA device)";
  return NicTransport::ethernet;
}

}  // namespace

const char* nic_transport_name(NicTransport t) {
  switch (t) {
    case NicTransport::infiniband:
      return "InfiniBand";
    case NicTransport::roce:
      return "RoCE";
    case NicTransport::verbs:
      return "InfiniBand or RoCE";
    case NicTransport::slingshot:
      return "Slingshot";
    case NicTransport::efa:
      return "EFA";
    case NicTransport::ethernet:
      return "Ethernet";
  }
  return "?";
}

NicFacts classify_nic(const Device& nic, const NicEvidence& ev) {
  NicFacts f;
  std::string why;
  f.transport = transport_of(nic, ev, why);
  f.rdma = f.transport != NicTransport::ethernet;
  f.link_mbps = ev.kernel_mbps;
  f.evidence = why + "; ";
  if (f.link_mbps > 0)
    f.evidence += "link " + speed_text(f.link_mbps) + (ev.measured_here ? " (kernel, here)" : "");
  else
    f.evidence += "link speed unknown";
  const char* part = gigabit_part(nic);
  if (f.link_mbps > 0 && f.link_mbps <= 1000) {
    f.management = true;
    f.management_why = speed_text(f.link_mbps) + " link";
  } else if (f.link_mbps <= 0 && part) {
    f.management = true;
    f.management_why = std::string(part) + ", a 1 GbE part by its PCI id";
    f.evidence += ", " + f.management_why;
  } else if (f.link_mbps <= 0 && !f.rdma && ev.pcie_gbytes > 0 && ev.pcie_gbytes <= 1.0) {
    // 1 GB/s of PCIe carries at most 8 Gb/s: too slow a port for a job's traffic.
    char text[64];
    std::snprintf(text, sizeof text, "PCIe link %.2f GB/s (at most 8 Gb/s)", ev.pcie_gbytes);
    f.management = true;
    f.management_why = text;
    f.evidence += std::string(", ") + text;
  }
  return f;
}

std::map<std::string, NicFacts> nic_facts(const Topology& topo,
                                          const std::vector<Device>& devices) {
  std::map<std::string, NicEvidence> evidence;
  auto handle = static_cast<hwloc_topology_t>(topo.native_handle());
  for (hwloc_obj_t pci = hwloc_get_next_pcidev(handle, nullptr); pci;
       pci = hwloc_get_next_pcidev(handle, pci)) {
    char bus[32];
    std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.%x", pci->attr->pcidev.domain,
                  pci->attr->pcidev.bus, pci->attr->pcidev.dev, pci->attr->pcidev.func);
    NicEvidence& ev = evidence[bus];
    ev.pcie_gbytes = pci->attr->pcidev.linkspeed;
    for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling)
      if (c->type == HWLOC_OBJ_OS_DEVICE &&
          ((c->subtype && std::string(c->subtype) == "Slingshot") ||
           (c->name && starts_with(c->name, "cxi"))))
        ev.slingshot = true;
  }
  std::vector<os::NicSpeed> speeds;
  if (topo.is_this_machine()) speeds = os::read_nic_speeds();
  std::map<std::string, NicFacts> out;
  for (const Device& d : devices) {
    if (d.kind != DeviceKind::nic) continue;
    NicEvidence ev = evidence[d.bus_id];
    for (const os::NicSpeed& s : speeds) {
      const auto& names = s.rdma ? d.rdma : d.netdevs;
      if (std::find(names.begin(), names.end(), s.name) == names.end()) continue;
      ev.kernel_mbps = std::max(ev.kernel_mbps, s.mbps);
      if (s.rdma && ev.link_layer.empty()) ev.link_layer = s.link_layer;
      ev.measured_here = true;
    }
    out[d.bus_id] = classify_nic(d, ev);
  }
  return out;
}

}  // namespace threadmap
