// What carries a NIC's traffic and how fast, for choosing a rank's NIC (cluster/nic_choice):
// its transport (InfiniBand or RoCE through a verbs device, Slingshot through libfabric's cxi
// provider, AWS EFA through libfabric's efa provider, or plain Ethernet through sockets), its
// link speed where it is known, and whether it is a slow management port. Evidence comes from
// the topology (PCI class and ids, hwloc's OS devices and their subtype, the PCIe link) and, on
// this machine, from the kernel's link speeds (os::read_nic_speeds). A recorded topology holds
// no link speed: then the part's class and PCI ids decide, and the text says "link speed
// unknown".
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/core/devices.hpp"
#include "threadmap/topology.hpp"

namespace threadmap {

enum class NicTransport { infiniband, roce, verbs, slingshot, efa, ethernet };

/// "InfiniBand", "RoCE", "InfiniBand or RoCE", "Slingshot", "EFA", "Ethernet".
const char* nic_transport_name(NicTransport t);

/// What a NIC is, and how we know.
struct NicFacts {
  NicTransport transport = NicTransport::ethernet;
  bool rdma = false;    ///< traffic bypasses the kernel (verbs, cxi, efa): not sockets
  long link_mbps = -1;  ///< -1: unknown
  /// A port too slow for a job's traffic: 1 Gb/s or less by the kernel, a 1 GbE part by its PCI
  /// id (Intel I350/I210/I211, Broadcom BCM5719/5720...), or a PCIe link of 1 GB/s or less.
  bool management = false;
  std::string management_why;  ///< "Intel I350, a 1 GbE part", "1 Gb/s link"; "" when not
  std::string evidence;        ///< "verbs device mlx5_0, PCI class InfiniBand; link speed unknown"
};

/// The raw evidence for one NIC, apart from the Device: what hwloc's OS devices and PCI link
/// say, and what the kernel says on this machine. classify_nic is pure over it (unit-tested).
struct NicEvidence {
  bool slingshot = false;      ///< an OS device with hwloc subtype "Slingshot", or a cxi device
  double pcie_gbytes = 0;      ///< hwloc's PCIe link speed in GB/s; 0 unknown
  long kernel_mbps = -1;       ///< os::NicSpeed of its netdevs/RDMA devices (the fastest); -1
  std::string link_layer;      ///< an RDMA device's link layer from the kernel; "" unknown
  bool measured_here = false;  ///< kernel_mbps / link_layer were read on this machine
};

NicFacts classify_nic(const Device& nic, const NicEvidence& evidence);

/// classify_nic for every NIC of `devices` on `topo`, by bus id; on this machine
/// (topo.is_this_machine()) with the kernel's speeds.
std::map<std::string, NicFacts> nic_facts(const Topology& topo, const std::vector<Device>& devices);

}  // namespace threadmap
