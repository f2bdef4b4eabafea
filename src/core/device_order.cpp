// GPU numbers as each vendor's runtime gives them: NVIDIA's and Intel's follow the PCI bus
// (with CUDA_DEVICE_ORDER=PCI_BUS_ID / ZE_ENABLE_PCI_ID_DEVICE_ORDER=1, which threadmap sets);
// ROCm enumerates its GPUs in the KFD topology's order, which need not follow the bus, so AMD's
// come from what ROCm itself said: the names ROCm SMI (rsmiN) or OpenCL (openclPdN) gave each GPU
// in a recorded topology, or the KFD topology / ROCm SMI on this machine.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "src/core/devices.hpp"

namespace threadmap {
namespace {

constexpr unsigned kNvidia = 0x10de;
constexpr unsigned kAmd = 0x1002;
constexpr unsigned kIntel = 0x8086;

// The number in a ROCm name of the device: "rsmi3" -> 3, "opencl0d3" -> 3; -1 for others.
int rocm_number(const std::string& name, const char* kind) {
  unsigned platform = 0, n = 0;
  char tail = 0;
  if (std::string(kind) == "rsmi" && std::sscanf(name.c_str(), "rsmi%u%c", &n, &tail) == 1)
    return static_cast<int>(n);
  if (std::string(kind) == "opencl" &&
      std::sscanf(name.c_str(), "opencl%ud%u%c", &platform, &n, &tail) == 2)
    return static_cast<int>(n);
  return -1;
}

// ROCm's number of every AMD GPU from one kind of name, when each has exactly one and none
// repeats; empty otherwise.
std::vector<int> numbers_from(const std::vector<Device*>& amd, const char* kind) {
  std::vector<int> out;
  std::set<int> seen;
  for (const Device* d : amd) {
    int found = -1, count = 0;
    for (const std::string& name : d->os_names)
      if (int n = rocm_number(name, kind); n >= 0) {
        found = n;
        ++count;
      }
    if (count != 1 || !seen.insert(found).second) return {};
    out.push_back(found);
  }
  return out;
}

// 0..k-1 in the order of `numbers` (ROCm's numbers may skip: a hidden or failed GPU).
std::vector<int> ranks_of(const std::vector<int>& numbers) {
  std::vector<int> sorted = numbers, out;
  std::sort(sorted.begin(), sorted.end());
  for (int n : numbers)
    out.push_back(
        static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), n) - sorted.begin()));
  return out;
}

}  // namespace

bool is_apu(unsigned vendor_id, unsigned device_id) {
  return vendor_id == kAmd && device_id == 0x74a0;  // Instinct MI300A
}

void number_gpus(std::vector<Device>& devices) {
  for (unsigned vendor : {kNvidia, kAmd, kIntel}) {
    std::vector<Device*> gpus;
    for (Device& d : devices)
      if (d.kind == DeviceKind::gpu && d.vendor_id == vendor) gpus.push_back(&d);
    int next = 0;
    for (size_t i = 0; i < gpus.size(); ++i) {
      // Partitions of one GPU share its bus position.
      if (i > 0 && gpus[i]->bus_id != gpus[i - 1]->bus_id) ++next;
      gpus[i]->bus_index = next;
      gpus[i]->index = static_cast<int>(i);
      gpus[i]->runtime_order = vendor == kNvidia  ? "PCI bus order (nvidia-smi's)"
                               : vendor == kIntel ? "PCI bus order"
                                                  : "";
    }
    int flat = 0;
    for (Device* d : gpus)
      if (vendor == kIntel) {
        d->flat_index = flat;
        flat += d->tiles > 0 ? d->tiles : 1;
      }
    if (vendor != kAmd || gpus.empty()) continue;
    if (gpus.size() == 1) {
      gpus[0]->runtime_order = "the only AMD GPU";
      continue;
    }
    for (auto [kind, source] :
         {std::pair{"rsmi", "ROCm SMI names (rsmiN) recorded in the topology"},
          {"opencl", "OpenCL names (openclPdN) recorded in the topology"}}) {
      std::vector<int> numbers = numbers_from(gpus, kind);
      if (numbers.empty()) continue;
      std::vector<int> ranks = ranks_of(numbers);
      for (size_t i = 0; i < gpus.size(); ++i) {
        gpus[i]->index = ranks[i];
        gpus[i]->runtime_order = source;
      }
      break;
    }
  }
}

void split_mig_instances(std::vector<Device>& devices) {
  std::vector<Device> out;
  bool split = false;
  for (Device& d : devices) {
    if (d.kind != DeviceKind::gpu || d.vendor_id != kNvidia || d.mig.empty() || d.partition >= 0) {
      out.push_back(std::move(d));
      continue;
    }
    split = true;
    for (const GpuInstance& m : d.mig) {
      Device part = d;
      part.partition = m.index;
      part.gpu_uuid = d.uuid;
      part.uuid = m.uuid;
      part.mig = {m};
      out.push_back(std::move(part));
    }
  }
  devices = std::move(out);
  if (!split) return;
  number_gpus(devices);
  for (Device& d : devices)
    if (d.kind == DeviceKind::gpu && d.vendor_id == kNvidia)
      d.runtime_order = "PCI bus order, each MIG instance a device (NVML's order), named by UUID";
}

void split_amd_partitions(std::vector<Device>& devices,
                          const std::vector<std::pair<std::string, std::string>>& nodes) {
  std::vector<Device> out;
  bool split = false;
  for (Device& d : devices) {
    std::vector<const std::string*> uuids;
    for (const auto& [bus, uuid] : nodes)
      if (bus == d.bus_id) uuids.push_back(&uuid);
    if (d.kind != DeviceKind::gpu || d.vendor_id != kAmd || d.partition >= 0 || uuids.size() < 2) {
      out.push_back(std::move(d));
      continue;
    }
    split = true;
    for (size_t i = 0; i < uuids.size(); ++i) {
      Device part = d;
      part.partition = static_cast<int>(i);
      part.gpu_uuid = d.uuid;
      part.uuid = *uuids[i];
      out.push_back(std::move(part));
    }
  }
  devices = std::move(out);
  if (split) number_gpus(devices);
}

bool apply_rocm_order(std::vector<Device>& devices,
                      const std::vector<std::pair<std::string, int>>& order,
                      const std::string& source, std::vector<std::string>& notes) {
  std::vector<Device*> amd;
  for (Device& d : devices)
    if (d.kind == DeviceKind::gpu && d.vendor_id == kAmd) amd.push_back(&d);
  if (amd.empty() || order.empty()) return false;
  // Each entry names a bus id; partitions of one GPU take its entries in turn.
  std::map<std::string, std::vector<int>> by_bus;
  for (const auto& [bus, n] : order) by_bus[bus].push_back(n);
  std::vector<int> numbers;
  std::map<std::string, size_t> used;
  for (Device* d : amd) {
    auto it = by_bus.find(d->bus_id);
    size_t k = used[d->bus_id]++;
    if (it == by_bus.end() || k >= it->second.size()) {
      notes.push_back(source + " does not list the AMD GPU at " + d->bus_id +
                      "; ROCm's order not taken from it");
      return false;
    }
    numbers.push_back(it->second[k]);
  }
  if (numbers.size() != order.size()) {
    notes.push_back(source + " lists " + std::to_string(order.size()) + " AMD GPUs, the topology " +
                    std::to_string(amd.size()) + "; ROCm's order not taken from it");
    return false;
  }
  std::vector<int> ranks = ranks_of(numbers);
  for (size_t i = 0; i < amd.size(); ++i) {
    if (!amd[i]->runtime_order.empty() && amd[i]->runtime_order != "the only AMD GPU" &&
        amd[i]->index != ranks[i])
      notes.push_back(source + " numbers the AMD GPU at " + amd[i]->bus_id + " " +
                      std::to_string(ranks[i]) + ", the " + amd[i]->runtime_order + " " +
                      std::to_string(amd[i]->index) + "; " + source + " is used");
    amd[i]->index = ranks[i];
    amd[i]->runtime_order = source;
  }
  return true;
}

}  // namespace threadmap
