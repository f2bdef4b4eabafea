#include "src/os/gpu_device_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

#include "src/os/files.hpp"

namespace threadmap::os {
namespace {

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

}  // namespace

bool parse_kfd_properties(const std::string& text, KfdGpu& out) {
  std::istringstream in(text);
  std::string key;
  unsigned long long value = 0;
  bool has_location = false;
  unsigned long long location = 0, domain = 0, simds = 0;
  while (in >> key >> value) {
    if (key == "location_id") {
      location = value;
      has_location = true;
    } else if (key == "domain") {
      domain = value;
    } else if (key == "simd_count") {
      simds = value;
    } else if (key == "unique_id") {
      out.unique_id = value;
    }
  }
  if (!has_location || simds == 0) return false;
  // location_id is the PCI bus number and devfn: bus << 8 | device << 3 | function.
  char text_id[32];
  std::snprintf(text_id, sizeof text_id, "%04x:%02x:%02x.%x", static_cast<unsigned>(domain),
                static_cast<unsigned>((location >> 8) & 0xff),
                static_cast<unsigned>((location >> 3) & 0x1f), static_cast<unsigned>(location & 7));
  out.bus_id = text_id;
  return true;
}

Result<std::vector<KfdGpu>> read_kfd_gpus(const std::string& root) {
  const std::string dir = root + "/sys/class/kfd/kfd/topology/nodes";
  auto names = list_directory(dir);
  if (!names) return names.error();
  std::vector<int> nodes;
  for (const std::string& name : *names)
    if (all_digits(name) && name.size() < 7) nodes.push_back(std::stoi(name));
  std::sort(nodes.begin(), nodes.end());
  std::vector<KfdGpu> out;
  for (int node : nodes) {
    auto text = read_file(dir + "/" + std::to_string(node) + "/properties", 1 << 16);
    if (!text) continue;
    KfdGpu gpu;
    gpu.node = node;
    if (parse_kfd_properties(*text, gpu)) out.push_back(gpu);
  }
  return out;
}

NvidiaDeviceFiles probe_nvidia_device_files(const std::string& root) {
  NvidiaDeviceFiles out;
  auto names = list_directory(root + "/dev");
  if (!names) return out;
  for (const std::string& name : *names) {
    if (name.rfind("nvidia", 0) != 0 || !all_digits(name.substr(6))) continue;
    ++out.present;
    int fd = ::open((root + "/dev/" + name).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      ++out.openable;
      ::close(fd);
    }
  }
  return out;
}

}  // namespace threadmap::os
