#include "src/cluster/rank_gpus.hpp"

#include <algorithm>
#include <cctype>

namespace threadmap::cluster {
namespace {

constexpr unsigned kNvidia = 0x10de;
constexpr unsigned kAmd = 0x1002;

const std::string* find(const Environment& env, const std::string& name) {
  auto it = env.find(name);
  return it == env.end() ? nullptr : &it->second;
}

bool is_index(const std::string& s) {
  return !s.empty() && s.size() <= 6 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      cur.push_back(c);
    }
  }
  out.push_back(cur);
  return out;
}

std::string joined(const std::vector<std::string>& items, const char* sep = ",") {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

// Slurm's GPU list: "0,1" or ranges "0-3" (its GRES indexes follow NVML's, i.e. bus order).
Result<std::vector<int>> slurm_indexes(const std::string& name, const std::string& value) {
  std::vector<int> out;
  for (const std::string& item : split(value, ',')) {
    size_t dash = item.find('-');
    std::string a = item.substr(0, dash), b = dash == std::string::npos ? a : item.substr(dash + 1);
    if (!is_index(a) || !is_index(b) || std::stoi(b) < std::stoi(a))
      return Error::invalid("bad " + name + "='" + value + "': expected GPU indexes such as 0,1");
    for (int i = std::stoi(a); i <= std::stoi(b); ++i) out.push_back(i);
  }
  return out;
}

struct Reading {
  const std::vector<Device>& devices;
  std::vector<const Device*> gpus;  // compute GPUs, bus order
  VisibleGpus out;

  Error bad(const std::string& entry, const std::string& why) const {
    return Error::invalid(out.variable + "='" + out.value + "': entry '" + entry + "' " + why);
  }

  // One entry of a vendor variable: an index into `base` (bus order, or Slurm's list), a UUID
  // or a MIG id.
  Result<const Device*> entry(const std::string& text, const std::vector<const Device*>& base) {
    if (is_index(text)) {
      size_t i = static_cast<size_t>(std::stoi(text));
      if (i >= base.size())
        return bad(text, "names no GPU here: there are " + std::to_string(base.size()) + " (0 to " +
                             std::to_string(base.size() - 1) + ")");
      return base[i];
    }
    auto found = find_device(devices, "gpu:" + text);
    if (!found) return bad(text, "names no GPU here (" + found.error().message + ")");
    return *found;
  }

  Status list(const std::vector<std::string>& entries, const std::vector<const Device*>& base) {
    for (const std::string& e : entries) {
      if (e.empty()) return bad(e, "is empty");
      auto d = entry(e, base);
      if (!d) return d.error();
      out.gpus.push_back(*d);
    }
    return {};
  }
};

bool one_model(const std::vector<const Device*>& gpus) {
  return std::all_of(gpus.begin(), gpus.end(),
                     [&](const Device* g) { return g->device_id == gpus.front()->device_id; });
}

// CUDA numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID; only equal GPUs (ties
// go by bus id) make that the bus order without asking CUDA.
Status check_cuda_order(Reading& r, const Environment& env,
                        const std::vector<std::string>& entries) {
  if (!std::any_of(entries.begin(), entries.end(), is_index)) return {};
  const std::string* order = find(env, "CUDA_DEVICE_ORDER");
  if (order && *order == "PCI_BUS_ID") return {};
  if (!one_model(r.gpus))
    return Error::invalid(
        "CUDA_VISIBLE_DEVICES='" + r.out.value +
        "' holds indexes in CUDA's default fastest-first order, which only CUDA knows on a "
        "machine with different GPU models: set CUDA_DEVICE_ORDER=PCI_BUS_ID (nvidia-smi's "
        "order) or name the GPUs by UUID");
  r.out.notes.push_back(
      "CUDA_DEVICE_ORDER is not PCI_BUS_ID: indexes read in bus order (every GPU here is the "
      "same model, so CUDA's fastest-first order is the bus order)");
  return {};
}

}  // namespace

Result<VisibleGpus> visible_gpus(const std::vector<Device>& devices, const Environment& env) {
  Reading r{devices, compute_gpus(devices), {}};
  if (r.gpus.empty()) return r.out;
  const unsigned vendor = r.gpus.front()->vendor_id;
  // Slurm's list, when there is one: physical indexes in bus order.
  std::vector<const Device*> slurm;
  std::string slurm_var;
  for (const char* var : {"SLURM_STEP_GPUS", "SLURM_JOB_GPUS"}) {
    const std::string* value = find(env, var);
    if (!value || value->empty()) continue;
    auto indexes = slurm_indexes(var, *value);
    if (!indexes) return indexes.error();
    for (int i : *indexes) {
      if (static_cast<size_t>(i) >= r.gpus.size())
        return Error::invalid(std::string(var) + "='" + *value + "': GPU " + std::to_string(i) +
                              " is not here (there are " + std::to_string(r.gpus.size()) + ")");
      slurm.push_back(r.gpus[static_cast<size_t>(i)]);
    }
    slurm_var = var;
    break;
  }
  const std::vector<const char*> vendor_vars =
      vendor == kNvidia ? std::vector<const char*>{"CUDA_VISIBLE_DEVICES"}
      : vendor == kAmd  ? std::vector<const char*>{"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"}
                        : std::vector<const char*>{"ZE_AFFINITY_MASK"};
  for (const char* var : vendor_vars) {
    const std::string* value = find(env, var);
    if (!value) continue;
    r.out.variable = var;
    r.out.value = *value;
    if (value->empty() || *value == "NoDevFiles")
      return Error::invalid(std::string(var) + "='" + *value +
                            "': the program would see no GPU (the launcher gave this rank none)");
    std::vector<std::string> entries = split(*value, ',');
    if (r.out.variable == "ZE_AFFINITY_MASK")  // "0.1" is sub-device 1 of device 0
      for (std::string& e : entries) e = e.substr(0, e.find('.'));
    std::vector<const Device*> base = r.gpus;
    if (!slurm.empty() && std::all_of(entries.begin(), entries.end(), is_index)) {
      std::vector<std::string> slurm_text;
      for (const Device* d : slurm) slurm_text.push_back(std::to_string(d->index));
      const bool fits = std::all_of(entries.begin(), entries.end(), [&](const std::string& e) {
        return static_cast<size_t>(std::stoi(e)) < slurm.size();
      });
      if (entries != slurm_text && fits) {
        base = slurm;
        r.out.notes.push_back(std::string(var) + " read relative to " + slurm_var + "='" +
                              joined(slurm_text) +
                              "' (Slurm numbers a constrained job's GPUs from 0)");
      }
    }
    if (r.out.variable == "CUDA_VISIBLE_DEVICES")
      if (auto st = check_cuda_order(r, env, entries); !st) return st.error();
    if (auto st = r.list(entries, base); !st) return st.error();
    // HIP_VISIBLE_DEVICES selects inside ROCR_VISIBLE_DEVICES's list when both are set.
    if (r.out.variable == "ROCR_VISIBLE_DEVICES")
      if (const std::string* hip = find(env, "HIP_VISIBLE_DEVICES"); hip && !hip->empty()) {
        std::vector<const Device*> inside = r.out.gpus;
        r.out.gpus.clear();
        r.out.variable = "HIP_VISIBLE_DEVICES";
        r.out.value = *hip;
        if (auto st = r.list(split(*hip, ','), inside); !st) return st.error();
        r.out.notes.push_back("HIP_VISIBLE_DEVICES read inside ROCR_VISIBLE_DEVICES's list");
      }
    return r.out;
  }
  if (!slurm.empty()) {
    r.out.variable = slurm_var;
    r.out.value = *find(env, slurm_var);
    r.out.gpus = slurm;
  }
  return r.out;
}

std::vector<std::pair<std::string, std::string>> visible_devices_env(
    const std::vector<const Device*>& gpus) {
  if (gpus.empty()) return {};
  std::vector<std::string> indexes, uuids;
  for (const Device* g : gpus) {
    indexes.push_back(std::to_string(g->index));
    if (!g->uuid.empty()) uuids.push_back(g->uuid);
  }
  const bool by_uuid = uuids.size() == gpus.size();
  switch (gpus.front()->vendor_id) {
    case kNvidia:
      // Indexes are bus order only with CUDA_DEVICE_ORDER=PCI_BUS_ID (CUDA's default is
      // fastest first); a UUID needs no order.
      if (by_uuid) return {{"CUDA_VISIBLE_DEVICES", joined(uuids)}};
      return {{"CUDA_VISIBLE_DEVICES", joined(indexes)}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}};
    case kAmd:
      return {{"ROCR_VISIBLE_DEVICES", by_uuid ? joined(uuids) : joined(indexes)}};
    default:
      return {{"ZE_AFFINITY_MASK", joined(indexes)}, {"ZE_ENABLE_PCI_ID_DEVICE_ORDER", "1"}};
  }
}

Result<GpuAssignment> assign_gpus(const std::vector<Device>& devices, const Environment& env,
                                  const RankIdentity& id, int per_rank) {
  std::vector<const Device*> gpus = compute_gpus(devices);
  if (gpus.empty())
    return Error::invalid("no GPU found: the topology lists no NVIDIA, AMD or Intel GPU");
  if (per_rank < 1) return Error::invalid("bad GPU count " + std::to_string(per_rank));
  auto visible = visible_gpus(devices, env);
  if (!visible) return visible.error();
  GpuAssignment a;
  a.notes = visible->notes;
  const size_t per = static_cast<size_t>(per_rank);
  const size_t need = static_cast<size_t>(id.local_size) * per;
  const size_t first = static_cast<size_t>(id.local_rank) * per;
  const std::string rule =
      std::to_string(id.local_size) + " rank(s) x " + std::to_string(per_rank) + " GPU(s) each";
  if (!visible->variable.empty()) {
    const std::vector<const Device*>& named = visible->gpus;
    const std::string given = visible->variable + "=" + visible->value;
    if (named.size() == per) {
      a.mine = named;
      a.how = given + " (this rank's own)";
    } else if (named.size() >= need) {
      a.mine.assign(named.begin() + static_cast<long>(first),
                    named.begin() + static_cast<long>(first + per));
      a.node_gpus.assign(named.begin(), named.begin() + static_cast<long>(need));
      a.how = given + ", entr" + (per == 1 ? "y " : "ies ") + std::to_string(first) +
              (per == 1 ? "" : "-" + std::to_string(first + per - 1)) + " for local rank " +
              std::to_string(id.local_rank) +
              " (the variable is kept: the program picks by its local rank)";
    } else {
      return Error::invalid(given + " names " + std::to_string(named.size()) + " GPU(s): " + rule +
                            " need either each rank's own " + std::to_string(per_rank) +
                            " or every rank's " + std::to_string(need));
    }
    return a;
  }
  if (need > gpus.size())
    return Error::invalid(rule + " need " + std::to_string(need) + " GPUs; this node has " +
                          std::to_string(gpus.size()) +
                          " (ranks never share a GPU silently: run fewer ranks per node, or "
                          "give each rank its GPU in " +
                          (gpus.front()->vendor_id == kNvidia ? "CUDA_VISIBLE_DEVICES"
                           : gpus.front()->vendor_id == kAmd  ? "ROCR_VISIBLE_DEVICES"
                                                              : "ZE_AFFINITY_MASK") +
                          ")");
  a.mine.assign(gpus.begin() + static_cast<long>(first),
                gpus.begin() + static_cast<long>(first + per));
  a.node_gpus.assign(gpus.begin(), gpus.begin() + static_cast<long>(need));
  a.how = "PCI bus order: local rank " + std::to_string(id.local_rank) + " takes GPU " +
          std::to_string(a.mine.front()->index) +
          (per == 1 ? "" : "-" + std::to_string(a.mine.back()->index));
  a.set_env = visible_devices_env(a.mine);
  if (id.launcher == "torchrun") {
    // torchrun's programs pick their GPU by LOCAL_RANK (torch.cuda.set_device(local_rank)):
    // narrowing the visible devices would leave rank 1 without a device 1. The bus order makes
    // LOCAL_RANK i the GPU i this rank was placed next to.
    a.set_env.clear();
    const unsigned vendor = a.mine.front()->vendor_id;
    if (vendor == kNvidia) a.set_env = {{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}};
    if (vendor != kNvidia && vendor != kAmd) a.set_env = {{"ZE_ENABLE_PCI_ID_DEVICE_ORDER", "1"}};
    a.notes.push_back(
        "under torchrun the visible devices are not narrowed: the program picks "
        "its GPU by LOCAL_RANK, which is GPU " +
        std::to_string(a.mine.front()->index) + " in bus order");
  }
  return a;
}

}  // namespace threadmap::cluster
