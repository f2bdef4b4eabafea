// Reading /sys/devices/system/cpu/isolated: one kernel CPU list, empty when nothing is isolated.
#include "src/plan/isolated.hpp"

#include <fstream>
#include <sstream>

namespace threadmap::plan {

Result<CpuSet> read_isolated_cpus(const std::string& path) {
  std::ifstream in(path);
  if (!in) return CpuSet();  // no such file: older kernels, containers without sysfs
  std::stringstream text;
  text << in.rdbuf();
  std::string list = text.str();
  while (!list.empty() && (list.back() == '\n' || list.back() == ' ')) list.pop_back();
  if (list.empty()) return CpuSet();
  auto set = CpuSet::parse_list(list);
  if (!set) return set.error().with_context("cannot read isolated CPUs from " + path);
  return set;
}

}  // namespace threadmap::plan
