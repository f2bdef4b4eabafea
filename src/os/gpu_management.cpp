#include "src/os/gpu_management.hpp"

#include <dlfcn.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace threadmap::os {
namespace {

// The few NVML declarations used, as nvml.h (CUDA 12) defines them; written out here so that
// neither the header nor the library is needed to build.
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
struct NvmlPciInfo {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};

template <class F>
F symbol(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

// The first of `names` dlopen finds (RTLD_LOCAL: nothing of it leaks into our namespace).
void* open_first(std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return lib;
  return nullptr;
}

void add_mig_instances(void* lib, nvmlDevice_t device, ManagedGpu& gpu) {
  auto get_mode =
      symbol<nvmlReturn_t (*)(nvmlDevice_t, unsigned*, unsigned*)>(lib, "nvmlDeviceGetMigMode");
  auto get_max =
      symbol<nvmlReturn_t (*)(nvmlDevice_t, unsigned*)>(lib, "nvmlDeviceGetMaxMigDeviceCount");
  auto get_mig = symbol<nvmlReturn_t (*)(nvmlDevice_t, unsigned, nvmlDevice_t*)>(
      lib, "nvmlDeviceGetMigDeviceHandleByIndex");
  auto get_uuid = symbol<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned)>(lib, "nvmlDeviceGetUUID");
  if (!get_mode || !get_max || !get_mig || !get_uuid) return;  // an NVML older than MIG
  unsigned current = 0, pending = 0;
  // NOT_SUPPORTED on GPUs without MIG; mode 1 is NVML_DEVICE_MIG_ENABLE.
  if (get_mode(device, &current, &pending) != kNvmlSuccess || current != 1) return;
  unsigned max = 0;
  if (get_max(device, &max) != kNvmlSuccess) return;
  for (unsigned i = 0; i < max; ++i) {
    nvmlDevice_t mig = nullptr;
    if (get_mig(device, i, &mig) != kNvmlSuccess || !mig) continue;  // slot not populated
    char uuid[96] = {};
    if (get_uuid(mig, uuid, sizeof uuid) != kNvmlSuccess) continue;
    gpu.mig.push_back({static_cast<int>(i), uuid});
  }
}

}  // namespace

std::string normalized_bus_id(const std::string& text) {
  // DOMAIN:BUS:DEV.FN, hex fields only; the domain may have 4 or 8 digits.
  for (char c : text)
    if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return "";
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  int used = 0;
  if (std::sscanf(text.c_str(), "%8x:%2x:%2x.%1x%n", &domain, &bus, &dev, &fn, &used) != 4 ||
      used != static_cast<int>(text.size()))
    return "";
  if (dev > 0x1f || fn > 7) return "";
  char out[32];
  std::snprintf(out, sizeof out, "%04x:%02x:%02x.%x", domain, bus, dev, fn);
  return out;
}

ManagementReport query_nvml() {
  ManagementReport report;
  report.library = "NVML (libnvidia-ml.so.1)";
  void* lib = open_first({"libnvidia-ml.so.1", "libnvidia-ml.so"});
  if (!lib) {
    report.why_not = "libnvidia-ml.so.1 not found (no NVIDIA driver here)";
    return report;
  }
  auto init = symbol<nvmlReturn_t (*)()>(lib, "nvmlInit_v2");
  auto shutdown = symbol<nvmlReturn_t (*)()>(lib, "nvmlShutdown");
  auto count = symbol<nvmlReturn_t (*)(unsigned*)>(lib, "nvmlDeviceGetCount_v2");
  auto handle =
      symbol<nvmlReturn_t (*)(unsigned, nvmlDevice_t*)>(lib, "nvmlDeviceGetHandleByIndex_v2");
  auto pci = symbol<nvmlReturn_t (*)(nvmlDevice_t, NvmlPciInfo*)>(lib, "nvmlDeviceGetPciInfo_v3");
  auto uuid = symbol<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned)>(lib, "nvmlDeviceGetUUID");
  auto name = symbol<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned)>(lib, "nvmlDeviceGetName");
  auto error_string = symbol<const char* (*)(nvmlReturn_t)>(lib, "nvmlErrorString");
  if (!init || !shutdown || !count || !handle || !pci || !uuid || !name) {
    report.why_not = "libnvidia-ml.so.1 lacks nvmlInit_v2/nvmlDeviceGetPciInfo_v3 (too old)";
    dlclose(lib);
    return report;
  }
  if (nvmlReturn_t rc = init(); rc != kNvmlSuccess) {
    const char* why = error_string ? error_string(rc) : nullptr;
    report.why_not = "nvmlInit failed: " + std::string(why ? why : "error " + std::to_string(rc));
    dlclose(lib);
    return report;
  }
  report.loaded = true;
  unsigned n = 0;
  if (count(&n) == kNvmlSuccess) {
    for (unsigned i = 0; i < n; ++i) {
      nvmlDevice_t device = nullptr;
      if (handle(i, &device) != kNvmlSuccess) continue;
      ManagedGpu gpu;
      gpu.index = static_cast<int>(i);
      NvmlPciInfo info{};
      if (pci(device, &info) == kNvmlSuccess) {
        info.busId[sizeof info.busId - 1] = '\0';
        gpu.bus_id = normalized_bus_id(info.busId);
      }
      char text[96] = {};
      if (uuid(device, text, sizeof text) == kNvmlSuccess) gpu.uuid = text;
      char model[96] = {};
      if (name(device, model, sizeof model) == kNvmlSuccess) gpu.name = model;
      add_mig_instances(lib, device, gpu);
      report.gpus.push_back(std::move(gpu));
    }
  }
  shutdown();
  dlclose(lib);
  return report;
}

ManagementReport query_rocm_smi() {
  using rsmi_status_t = int;
  ManagementReport report;
  report.library = "ROCm SMI (librocm_smi64.so)";
  void* lib = open_first({"librocm_smi64.so", "librocm_smi64.so.7", "librocm_smi64.so.6",
                          "librocm_smi64.so.5", "librocm_smi64.so.1"});
  if (!lib) {
    report.why_not = "librocm_smi64.so not found (no ROCm here)";
    return report;
  }
  auto init = symbol<rsmi_status_t (*)(std::uint64_t)>(lib, "rsmi_init");
  auto shutdown = symbol<rsmi_status_t (*)()>(lib, "rsmi_shut_down");
  auto count = symbol<rsmi_status_t (*)(std::uint32_t*)>(lib, "rsmi_num_monitor_devices");
  auto pci = symbol<rsmi_status_t (*)(std::uint32_t, std::uint64_t*)>(lib, "rsmi_dev_pci_id_get");
  auto unique =
      symbol<rsmi_status_t (*)(std::uint32_t, std::uint64_t*)>(lib, "rsmi_dev_unique_id_get");
  auto name =
      symbol<rsmi_status_t (*)(std::uint32_t, char*, std::size_t)>(lib, "rsmi_dev_name_get");
  if (!init || !shutdown || !count || !pci) {
    report.why_not = "librocm_smi64.so lacks rsmi_init/rsmi_dev_pci_id_get";
    dlclose(lib);
    return report;
  }
  if (rsmi_status_t rc = init(0); rc != 0) {
    report.why_not = "rsmi_init failed: status " + std::to_string(rc);
    dlclose(lib);
    return report;
  }
  report.loaded = true;
  std::uint32_t n = 0;
  if (count(&n) == 0) {
    for (std::uint32_t i = 0; i < n; ++i) {
      ManagedGpu gpu;
      gpu.index = static_cast<int>(i);
      std::uint64_t bdf = 0;
      // BDFID = domain << 32 | bus << 8 | device << 3 | function (rocm_smi.h).
      if (pci(i, &bdf) == 0) {
        char text[32];
        std::snprintf(text, sizeof text, "%04x:%02x:%02x.%x",
                      static_cast<unsigned>((bdf >> 32) & 0xffffffffu),
                      static_cast<unsigned>((bdf >> 8) & 0xff),
                      static_cast<unsigned>((bdf >> 3) & 0x1f), static_cast<unsigned>(bdf & 0x7));
        gpu.bus_id = text;
      }
      std::uint64_t id = 0;
      if (unique && unique(i, &id) == 0) {
        char text[40];
        std::snprintf(text, sizeof text, "GPU-%016llx", static_cast<unsigned long long>(id));
        gpu.uuid = text;
      }
      char model[128] = {};
      if (name && name(i, model, sizeof model) == 0) gpu.name = model;
      report.gpus.push_back(std::move(gpu));
    }
  }
  shutdown();
  dlclose(lib);
  return report;
}

}  // namespace threadmap::os
