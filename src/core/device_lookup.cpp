// Finding a device by what users type (gpu:N, gpu:UUID, nic:NAME, pci:BUSID) and the NIC
// nearest to a GPU.
#include <strings.h>

#include <algorithm>
#include <cctype>

#include "src/core/devices.hpp"
#include "src/core/text.hpp"

namespace threadmap {
namespace {

bool has_prefix(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         strncasecmp(text.data(), prefix.data(), prefix.size()) == 0;
}

bool all_digits(std::string_view text) {
  return !text.empty() && text.size() <= 6 && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// A UUID written the way another vendor writes them: NVIDIA's "GPU-8-4-4-4-12" (or MIG-) on an
// AMD or Intel node, ROCm's "GPU-" + 16 hex digits on an NVIDIA one. "" when the form fits.
std::string foreign_uuid_form(unsigned vendor, std::string_view key) {
  auto hex_run = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
      return std::isxdigit(static_cast<unsigned char>(c));
    });
  };
  const bool rocm_form = key.size() == 20 && has_prefix(key, "GPU-") && hex_run(key.substr(4));
  const bool nvidia_form =
      (has_prefix(key, "GPU-") && key.size() == 40 && key[12] == '-') || has_prefix(key, "MIG-");
  if (vendor == 0x1002 && nvidia_form)
    return "an NVIDIA UUID (GPU-8-4-4-4-12 hex digits or MIG-...), and this node's GPUs are AMD's "
           "(ROCm writes GPU- and 16 hex digits)";
  if (vendor == 0x10de && rocm_form)
    return "a ROCm UUID (GPU- and 16 hex digits), and this node's GPUs are NVIDIA's (GPU- and "
           "8-4-4-4-12 hex digits, as nvidia-smi -L prints)";
  return "";
}

Result<const Device*> find_gpu(const std::vector<Device>& devices, std::string_view term,
                               std::string_view key) {
  std::vector<const Device*> gpus = compute_gpus(devices);
  if (gpus.empty())
    return Error::invalid("no GPU found for '" + std::string(term) +
                          "': this machine's topology lists no NVIDIA, AMD or Intel GPU");
  if (all_digits(key)) {
    const size_t n = static_cast<size_t>(std::stoi(std::string(key)));
    if (gpus.size() > 1 && gpus.front()->runtime_order.empty())
      return Error::invalid("'" + std::string(term) + "': ROCm's order of these " +
                            std::to_string(gpus.size()) +
                            " AMD GPUs is not known here (no rsmiN/OpenCL names recorded, no KFD "
                            "topology or ROCm SMI), and it need not follow the PCI bus: name the "
                            "GPU by UUID (gpu:GPU-...) or pci:BUSID");
    if (n >= gpus.size())
      return Error::invalid("'" + std::string(term) + "': there are " +
                            std::to_string(gpus.size()) +
                            " GPUs (gpu:0 to gpu:" + std::to_string(gpus.size() - 1) + ", in " +
                            gpus.front()->runtime_order + ")");
    return gpus[n];
  }
  if (auto form = foreign_uuid_form(gpus.front()->vendor_id, key); !form.empty())
    return Error::invalid("'" + std::string(term) + "' is " + form);
  // A MIG instance: the instance itself where the GPU was split (split_mig_instances), else its
  // GPU. Either way the CPUs and memory near it are the GPU's.
  for (const Device* g : gpus)
    if (g->partition >= 0 && strcasecmp(g->uuid.c_str(), std::string(key).c_str()) == 0) return g;
  for (const Device* g : gpus)
    for (const GpuInstance& m : g->mig)
      if (strcasecmp(m.uuid.c_str(), std::string(key).c_str()) == 0) return g;
  // Legacy MIG form MIG-GPU-<uuid>/<gi>/<ci> names its GPU's UUID.
  std::string uuid(key);
  // hwloc's text of ROCm's unique id (bare hex) is accepted as a name: it is what lstopo prints.
  if (gpus.front()->vendor_id == 0x1002 && !rocm_uuid(uuid).empty()) uuid = rocm_uuid(uuid);
  if (has_prefix(uuid, "MIG-GPU-")) uuid = uuid.substr(4, uuid.find('/') - 4);
  const Device* match = nullptr;
  int matches = 0;
  for (const Device* g : gpus) {
    if (g->uuid.empty() && g->gpu_uuid.empty()) continue;
    if (strcasecmp(g->uuid.c_str(), uuid.c_str()) == 0) return g;
    // A partitioned GPU's own UUID names its first partition.
    if (!g->gpu_uuid.empty() && strcasecmp(g->gpu_uuid.c_str(), uuid.c_str()) == 0) return g;
    // CUDA takes a unique prefix of a UUID too ("GPU-8932f937").
    if (uuid.size() >= 8 && has_prefix(g->uuid, uuid)) {
      match = g;
      ++matches;
    }
  }
  if (matches == 1) return match;
  if (matches > 1)
    return Error::invalid("'" + std::string(term) + "' is the start of several GPUs' UUIDs");
  bool any_uuid = std::any_of(gpus.begin(), gpus.end(), [](auto* g) { return !g->uuid.empty(); });
  return Error::invalid(
      "no GPU has UUID '" + std::string(key) + "' (in '" + std::string(term) + "')" +
      (any_uuid ? std::string("")
                : std::string(": no UUID is known here (the topology records none and no "
                              "NVML/ROCm SMI answered); name the GPU gpu:N or pci:BUSID")));
}

}  // namespace

bool is_device_term(std::string_view term) {
  return has_prefix(term, "gpu:") || has_prefix(term, "nic:") || has_prefix(term, "pci:");
}

Result<const Device*> find_device(const std::vector<Device>& devices, std::string_view term) {
  if (!is_device_term(term) || term.size() <= 4)
    return Error::invalid("bad device '" + std::string(term) +
                          "': expected gpu:N, gpu:UUID, nic:NAME or pci:BUSID");
  std::string_view key = term.substr(4);
  if (has_prefix(term, "gpu:")) return find_gpu(devices, term, key);
  if (has_prefix(term, "nic:")) {
    std::vector<std::string> names;
    for (const Device& d : devices) {
      if (d.kind != DeviceKind::nic) continue;
      for (const auto* list : {&d.netdevs, &d.rdma})
        for (const std::string& name : *list) {
          if (name == key) return &d;
          names.push_back(name);
        }
    }
    return Error::invalid("no NIC named '" + std::string(key) + "' (in '" + std::string(term) +
                          "'; NICs here: " + (names.empty() ? "none" : joined(names)) + ")");
  }
  std::string bus = canonical_bus_id(key);
  if (bus.empty())
    return Error::invalid("bad PCI bus id '" + std::string(key) + "' in '" + std::string(term) +
                          "': expected DOMAIN:BUS:DEV.FN or BUS:DEV.FN, e.g. 0000:34:00.0");
  for (const Device& d : devices)
    if (d.bus_id == bus) return &d;
  return Error::invalid("no GPU, NIC or NVMe drive at PCI " + bus + " (in '" + std::string(term) +
                        "')");
}

const Device* nearest_nic(const std::vector<Device>& devices, const Device& gpu, std::string* why) {
  const Device* best = nullptr;
  int best_score = -1;
  std::string best_why;
  for (const Device& nic : devices) {
    if (nic.kind != DeviceKind::nic || (nic.netdevs.empty() && nic.rdma.empty())) continue;
    size_t shared = 0;
    while (shared < nic.pci_path.size() && shared < gpu.pci_path.size() &&
           nic.pci_path[shared] == gpu.pci_path[shared])
      ++shared;
    int score = 0;
    std::string reason;
    if (shared >= 2) {
      score = 3000 + static_cast<int>(shared);
      reason = "behind the same PCIe switch as the GPU";
    } else if (shared == 1) {
      score = 2000;
      reason = "on the same PCIe root complex as the GPU";
    } else if (gpu.numa_node >= 0 && nic.numa_node == gpu.numa_node) {
      score = 1000;
      reason = "on the GPU's NUMA node " + std::to_string(gpu.numa_node);
    } else if (!(nic.cpus & gpu.cpus).empty() && nic.cpus != gpu.cpus) {
      score = 500;
      reason = "local to CPUs that meet the GPU's";
    } else if (nic.cpus == gpu.cpus) {
      score = 400;
      reason = "local to the same CPUs as the GPU";
    } else {
      continue;  // on another node: naming it would only narrow what the libraries may use
    }
    if (score > best_score) {  // devices are in bus order: the first of equals wins
      best = &nic;
      best_score = score;
      best_why = reason;
    }
  }
  if (why)
    *why = best ? best_why
                : "no NIC with a netdev or RDMA name is near the GPU (same PCIe switch, root "
                  "complex, NUMA node or CPUs)";
  return best;
}

}  // namespace threadmap
