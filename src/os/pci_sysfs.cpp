#include "src/os/pci_sysfs.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "src/os/files.hpp"
#include "src/os/small_text.hpp"

namespace threadmap::os {
namespace {

// "0x10de" or "10de" -> 0x10de; anything else -> 0.
unsigned parse_hex(const std::string& text) {
  std::string t(trimmed(text));
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t = t.substr(2);
  if (t.empty() || t.size() > 8) return 0;
  for (char c : t)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return 0;
  return static_cast<unsigned>(std::strtoul(t.c_str(), nullptr, 16));
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// "nvme0n1" but not "nvme0c0n1" (a multipath controller path) or "nvme0" itself.
bool is_namespace(const std::string& name) {
  size_t n = name.find('n', 4);
  if (!starts_with(name, "nvme") || n == std::string::npos || n + 1 >= name.size()) return false;
  for (size_t i = 4; i < name.size(); ++i)
    if (i != n && !std::isdigit(static_cast<unsigned char>(name[i]))) return false;
  return true;
}

PciSysfsEntry read_entry(const std::string& dir, const std::string& bus_id) {
  PciSysfsEntry e;
  const std::string base = dir + "/" + bus_id;
  e.bus_id = bus_id;
  e.class_text = read_small_file(base + "/class");
  e.vendor_text = read_small_file(base + "/vendor");
  e.device_text = read_small_file(base + "/device");
  e.numa_node_text = read_small_file(base + "/numa_node");
  e.local_cpulist_text = read_small_file(base + "/local_cpulist");
  e.net = directory_entries(base + "/net");
  // A virtio NIC's netdev hangs one level down, under its virtio device (virtio0/net/eth0).
  for (const std::string& name : directory_entries(base))
    if (starts_with(name, "virtio"))
      for (const std::string& netdev : directory_entries(base + "/" + name + "/net"))
        e.net.push_back(netdev);
  e.infiniband = directory_entries(base + "/infiniband");
  for (const std::string& controller : directory_entries(base + "/nvme"))
    for (const std::string& name : directory_entries(base + "/nvme/" + controller))
      if (is_namespace(name)) e.nvme.push_back(name);
  for (const std::string& name : directory_entries(base + "/drm"))
    if (starts_with(name, "card") || starts_with(name, "renderD")) e.drm.push_back(name);
  return e;
}

}  // namespace

PciDeviceFacts parse_pci_entry(const PciSysfsEntry& e) {
  PciDeviceFacts f;
  f.bus_id = lower(std::string(trimmed(e.bus_id)));
  f.class_id = parse_hex(e.class_text) >> 8;
  f.vendor_id = parse_hex(e.vendor_text);
  f.device_id = parse_hex(e.device_text);
  const std::string node(trimmed(e.numa_node_text));
  char* end = nullptr;
  long value = node.empty() ? -2 : std::strtol(node.c_str(), &end, 10);
  if (!node.empty() && end && *end == '\0' && value >= -1 && value < 1 << 20) {
    f.numa_node_read = true;
    f.numa_node = static_cast<int>(value);
  }
  f.local_cpus = std::string(trimmed(e.local_cpulist_text));
  f.netdevs = e.net;
  f.rdma = e.infiniband;
  f.block = e.nvme;
  f.drm = e.drm;
  for (auto* names : {&f.netdevs, &f.rdma, &f.block, &f.drm})
    std::sort(names->begin(), names->end());
  return f;
}

Result<std::vector<PciDeviceFacts>> read_pci_devices(const std::string& root) {
  const std::string dir = root + "/sys/bus/pci/devices";
  auto names = list_directory(dir);
  if (!names) return names.error();
  std::vector<PciDeviceFacts> out;
  for (const std::string& name : *names) out.push_back(parse_pci_entry(read_entry(dir, name)));
  std::sort(out.begin(), out.end(),
            [](const PciDeviceFacts& a, const PciDeviceFacts& b) { return a.bus_id < b.bus_id; });
  return out;
}

}  // namespace threadmap::os
