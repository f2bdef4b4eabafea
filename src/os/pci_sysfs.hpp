// PCI devices as the kernel lists them under /sys/bus/pci/devices/*: class, vendor, device,
// numa_node, local_cpulist, and the names the kernel gave their functions (netdevs, RDMA
// devices, NVMe namespaces, DRM cards). The parser is pure (unit-tested on recorded sysfs
// snapshots); read_pci_devices() is the one reader. Core compares what this reads with hwloc's
// I/O objects and says where the two disagree.
#pragma once

#include <string>
#include <vector>

#include "threadmap/result.hpp"

namespace threadmap::os {

/// The files of one device directory, as text (trailing newline kept off; "" when absent).
struct PciSysfsEntry {
  std::string bus_id;  ///< the directory name, "0000:34:00.0"
  std::string class_text;
  std::string vendor_text;
  std::string device_text;
  std::string numa_node_text;
  std::string local_cpulist_text;
  std::vector<std::string> net;         ///< entries of DIR/net (netdev names)
  std::vector<std::string> infiniband;  ///< entries of DIR/infiniband (RDMA device names)
  std::vector<std::string> nvme;        ///< namespaces under DIR/nvme/nvmeK/ ("nvme0n1")
  std::vector<std::string> drm;         ///< entries of DIR/drm ("card0", "renderD128")
};

/// One device, parsed.
struct PciDeviceFacts {
  std::string bus_id;      ///< "0000:34:00.0", lower case, as the kernel names it
  unsigned class_id = 0;   ///< base class and subclass (0x0302), as hwloc's class_id
  unsigned vendor_id = 0;  ///< 0x10de
  unsigned device_id = 0;
  /// OS NUMA node from numa_node; -1 when the file says -1 (the firmware gave none) or is absent.
  int numa_node = -1;
  bool numa_node_read = false;  ///< numa_node existed and held a number
  std::string local_cpus;       ///< local_cpulist as the kernel wrote it ("0-23,48-71"), or ""
  std::vector<std::string> netdevs;
  std::vector<std::string> rdma;
  std::vector<std::string> block;
  std::vector<std::string> drm;
};

/// Parses one entry. Hex fields take the kernel's "0x030200" form (class: the low byte, the
/// programming interface, is dropped, as hwloc does); a field that does not parse stays 0.
PciDeviceFacts parse_pci_entry(const PciSysfsEntry& entry);

/// Reads ROOT/sys/bus/pci/devices/* (`root` "" = the live machine; tests pass an extracted
/// sysfs snapshot). Devices are ordered by bus id. Fails (ENOENT...) only when the directory
/// cannot be listed; an unreadable file of one device leaves its field empty.
Result<std::vector<PciDeviceFacts>> read_pci_devices(const std::string& root = "");

}  // namespace threadmap::os
