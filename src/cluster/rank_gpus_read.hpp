// The pieces the visible-devices readers share: splitting a list, reading one entry (an index, a
// UUID or a MIG id) as the variable's runtime reads it, CUDA's order check, and Level Zero's
// affinity mask. Internal to src/cluster (rank_gpus_env.cpp and rank_gpus.cpp).
#pragma once

#include <string>
#include <vector>

#include "src/cluster/rank_gpus.hpp"

namespace threadmap::cluster {

/// How a list's entries are read.
enum class ListRule {
  cuda,     ///< CUDA: stops at a negative index (it hides the rest); a repeat shows no GPU
  rocm,     ///< ROCm: indexes or "GPU-" + 16 hex digits (hwloc's bare hex refused)
  indexes,  ///< indexes only (GPU_DEVICE_ORDINAL)
  unique,   ///< indexes or UUIDs, each once (NVIDIA_VISIBLE_DEVICES)
};

struct ListReader {
  const std::vector<Device>& devices;
  VisibleGpus out;

  void start(const std::string& variable, const std::string& value) {
    out.variable = variable;
    out.value = value;
  }
  Error bad(const std::string& entry, const std::string& why) const;
  /// The GPUs `entries` name, indexes counting in `base`.
  Result<std::vector<const Device*>> list(const std::vector<std::string>& entries,
                                          const std::vector<const Device*>& base, ListRule rule);

 private:
  Result<const Device*> entry(const std::string& text, const std::vector<const Device*>& base,
                              ListRule rule);
};

bool is_index(const std::string& s);
std::vector<std::string> split_list(const std::string& text, char sep);
const std::string* find_var(const Environment& env, const std::string& name);

/// CUDA numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID; indexes are read in bus
/// order only where every GPU of `base` is the same model (the two orders agree), else refused.
Status check_cuda_order(ListReader& r, const Environment& env,
                        const std::vector<std::string>& entries,
                        const std::vector<const Device*>& base);

/// ZE_AFFINITY_MASK's cards, under ZE_FLAT_DEVICE_HIERARCHY (FLAT, the default, and COMBINED:
/// entry N is the N-th tile of all cards in bus order; COMPOSITE: N is card N, N.M its tile M).
Result<std::vector<const Device*>> level_zero_mask(ListReader& r, const Environment& env,
                                                   const std::vector<const Device*>& cards);

/// The Level Zero hierarchy in effect: "FLAT" unless ZE_FLAT_DEVICE_HIERARCHY says COMPOSITE or
/// COMBINED; EINVAL naming the variable for any other value.
Result<std::string> level_zero_hierarchy(const Environment& env);

}  // namespace threadmap::cluster
