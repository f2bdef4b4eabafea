// Reading the visible-devices variables as each vendor's runtime reads them (docs/gpu.md has the
// table): CUDA's list up to its first invalid entry, a repeated GPU hiding them all; the NVIDIA
// container runtime's NVIDIA_VISIBLE_DEVICES choosing the GPUs a container has; ROCm's
// ROCR_VISIBLE_DEVICES, then GPU_DEVICE_ORDINAL, then HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES,
// each numbering what the one before left; Level Zero's ZE_AFFINITY_MASK under the device
// hierarchy ZE_FLAT_DEVICE_HIERARCHY chooses; Slurm's lists, read relative or absolute by what
// this node's device files say.
#include <algorithm>
#include <cctype>

#include "src/cluster/rank_gpus.hpp"
#include "src/cluster/rank_gpus_read.hpp"

namespace threadmap::cluster {
namespace {

constexpr unsigned kNvidia = 0x10de;
constexpr unsigned kAmd = 0x1002;

// Slurm's GPU list: "0,1" or ranges "0-3" (GRES indexes: NVML's or ROCm SMI's order).
Result<std::vector<int>> slurm_indexes(const std::string& name, const std::string& value) {
  std::vector<int> out;
  for (const std::string& item : split_list(value, ',')) {
    size_t dash = item.find('-');
    std::string a = item.substr(0, dash), b = dash == std::string::npos ? a : item.substr(dash + 1);
    if (!is_index(a) || !is_index(b) || std::stoi(b) < std::stoi(a))
      return Error::bad_input("gpus",
                              "bad " + name + "='" + value + "': expected GPU indexes such as 0,1");
    for (int i = std::stoi(a); i <= std::stoi(b); ++i) out.push_back(i);
  }
  return out;
}

Result<std::pair<std::string, std::vector<const Device*>>> slurm_list(
    const Environment& env, const std::vector<const Device*>& gpus) {
  for (const char* var : {"SLURM_STEP_GPUS", "SLURM_JOB_GPUS"}) {
    const std::string* value = find_var(env, var);
    if (!value || value->empty()) continue;
    auto indexes = slurm_indexes(var, *value);
    if (!indexes) return indexes.error();
    std::vector<const Device*> out;
    for (int i : *indexes) {
      if (static_cast<size_t>(i) >= gpus.size())
        return Error::bad_input("gpus", std::string(var) + "='" + *value + "': GPU " +
                                            std::to_string(i) + " is not here (there are " +
                                            std::to_string(gpus.size()) + ")");
      out.push_back(gpus[static_cast<size_t>(i)]);
    }
    return std::pair{std::string(var), out};
  }
  return std::pair{std::string(), std::vector<const Device*>{}};
}

// Under Slurm, whether an index list counts inside Slurm's list (ConstrainDevices) or all of the
// node's GPUs: the device files this step may open say it; without them it is assumed.
std::vector<const Device*> slurm_base(ListReader& r, const std::string& var,
                                      const std::vector<std::string>& entries,
                                      const std::vector<const Device*>& base,
                                      const std::string& slurm_var,
                                      const std::vector<const Device*>& slurm,
                                      const NodeDeviceFiles& files) {
  if (slurm.empty() || !std::all_of(entries.begin(), entries.end(), is_index)) return base;
  std::string slurm_text;
  for (const Device* d : slurm)
    slurm_text += (slurm_text.empty() ? "" : ",") + std::to_string(d->index);
  if (files.present > 0 && files.openable < files.present && files.openable == int(slurm.size())) {
    r.out.notes.push_back(var + " read relative to " + slurm_var + "='" + slurm_text +
                          "': this step can open " + std::to_string(files.openable) + " of the " +
                          std::to_string(files.present) +
                          " /dev/nvidiaN files (a cgroup device rule: Slurm's ConstrainDevices)");
    return slurm;
  }
  if (files.present > 0 && files.openable == files.present) {
    r.out.notes.push_back(var + " read as the node's GPU indexes: this step can open all " +
                          std::to_string(files.present) +
                          " /dev/nvidiaN files (no device constraint)");
    return base;
  }
  bool same = entries.size() == slurm.size();
  for (size_t i = 0; same && i < entries.size(); ++i)
    same = std::stoi(entries[i]) == slurm[i]->index;
  const bool fits = std::all_of(entries.begin(), entries.end(), [&](const std::string& e) {
    return static_cast<size_t>(std::stoi(e)) < slurm.size();
  });
  if (same || !fits) return base;
  r.out.notes.push_back(var + " read relative to " + slurm_var + "='" + slurm_text +
                        "' (assumed: Slurm numbers a constrained job's GPUs from 0; nothing on "
                        "this node says whether the step is constrained)");
  return slurm;
}

// NVIDIA_VISIBLE_DEVICES: the GPUs the NVIDIA container runtime put in this container, which
// its programs number from 0 in bus order.
Result<std::vector<const Device*>> container_gpus(ListReader& r, const Environment& env,
                                                  const std::vector<const Device*>& gpus) {
  const std::string* value = find_var(env, "NVIDIA_VISIBLE_DEVICES");
  if (!value || *value == "all") return gpus;
  r.start("NVIDIA_VISIBLE_DEVICES", *value);
  if (value->empty() || *value == "void" || *value == "none")
    return Error::bad_input(
        "gpus", "NVIDIA_VISIBLE_DEVICES='" + *value +
                    "': the NVIDIA container runtime gives this container no GPU (none: "
                    "the driver without devices; void or empty: nothing of NVIDIA's)");
  auto named = r.list(split_list(*value, ','), gpus, ListRule::unique);
  if (!named) return named.error();
  std::vector<const Device*> out = *named;
  std::sort(out.begin(), out.end(),
            [](const Device* a, const Device* b) { return a->index < b->index; });
  r.out.notes.push_back("NVIDIA_VISIBLE_DEVICES='" + *value + "': this container has " +
                        std::to_string(out.size()) +
                        " of the node's GPUs, numbered from 0 in bus order inside it");
  return out;
}

Result<VisibleGpus> nvidia(ListReader& r, const Environment& env,
                           const std::vector<const Device*>& gpus, const std::string& slurm_var,
                           const std::vector<const Device*>& slurm, const NodeDeviceFiles& files) {
  auto base = container_gpus(r, env, gpus);
  if (!base) return base.error();
  const std::string* value = find_var(env, "CUDA_VISIBLE_DEVICES");
  if (!value) {
    if (base->size() == gpus.size() && slurm.empty()) return VisibleGpus{};
    r.out.gpus = slurm.empty() ? *base : slurm;
    if (!slurm.empty()) r.start(slurm_var, *find_var(env, slurm_var));
    return r.out;
  }
  r.start("CUDA_VISIBLE_DEVICES", *value);
  std::vector<std::string> entries = split_list(*value, ',');
  std::vector<const Device*> within =
      slurm_base(r, "CUDA_VISIBLE_DEVICES", entries, *base, slurm_var, slurm, files);
  if (auto st = check_cuda_order(r, env, entries, *base); !st) return st.error();
  auto named = r.list(entries, within, ListRule::cuda);
  if (!named) return named.error();
  r.out.gpus = *named;
  return r.out;
}

// ROCm: ROCR_VISIBLE_DEVICES (ROCr, every ROCm program), then GPU_DEVICE_ORDINAL (ROCclr: HIP
// and OpenCL), then HIP_VISIBLE_DEVICES -- or CUDA_VISIBLE_DEVICES, which HIP also honours when
// HIP's is unset -- each numbering the GPUs the one before left.
Result<VisibleGpus> amd(ListReader& r, const Environment& env,
                        const std::vector<const Device*>& gpus, const std::string& slurm_var,
                        const std::vector<const Device*>& slurm, const NodeDeviceFiles& files) {
  std::vector<const Device*> left = gpus;
  std::vector<std::string> applied;
  const char* hip =
      find_var(env, "HIP_VISIBLE_DEVICES") ? "HIP_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES";
  for (const char* var : {"ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", hip}) {
    const std::string* value = find_var(env, var);
    if (!value) continue;
    r.start(var, *value);
    std::vector<std::string> entries = split_list(*value, ',');
    const bool first = applied.empty();
    std::vector<const Device*> within =
        first ? slurm_base(r, var, entries, left, slurm_var, slurm, files) : left;
    auto named =
        r.list(entries, within,
               std::string(var) == "GPU_DEVICE_ORDINAL" ? ListRule::indexes : ListRule::rocm);
    if (!named) return named.error();
    if (!first)
      r.out.notes.push_back(std::string(var) + " numbers the GPUs " + applied.back() + " left (" +
                            std::to_string(left.size()) + ")");
    left = *named;
    applied.push_back(var);
  }
  if (applied.empty()) {
    if (slurm.empty()) return VisibleGpus{};
    r.start(slurm_var, *find_var(env, slurm_var));
    r.out.gpus = slurm;
    return r.out;
  }
  r.out.gpus = left;
  return r.out;
}

}  // namespace

Result<VisibleGpus> visible_gpus(const std::vector<Device>& devices, const Environment& env,
                                 const NodeDeviceFiles& files) {
  std::vector<const Device*> gpus = compute_gpus(devices);
  ListReader r{devices, {}};
  if (gpus.empty()) return r.out;
  auto slurm = slurm_list(env, gpus);
  if (!slurm) return slurm.error();
  const auto& [slurm_var, slurm_gpus] = *slurm;
  switch (gpus.front()->vendor_id) {
    case kNvidia:
      return nvidia(r, env, gpus, slurm_var, slurm_gpus, files);
    case kAmd:
      return amd(r, env, gpus, slurm_var, slurm_gpus, files);
    default:
      if (const std::string* value = find_var(env, "ZE_AFFINITY_MASK")) {
        r.start("ZE_AFFINITY_MASK", *value);
        auto named = level_zero_mask(r, env, gpus);
        if (!named) return named.error();
        r.out.gpus = *named;
        return r.out;
      }
      if (slurm_gpus.empty()) return r.out;
      r.start(slurm_var, *find_var(env, slurm_var));
      r.out.gpus = slurm_gpus;
      return r.out;
  }
}

}  // namespace threadmap::cluster
