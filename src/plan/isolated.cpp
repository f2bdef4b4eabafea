// Isolated CPUs: the kernel's list is read by src/os (sysfs.hpp); here it becomes a CpuSet.
#include "src/plan/isolated.hpp"

#include "src/os/sysfs.hpp"

namespace threadmap::plan {

Result<CpuSet> read_isolated_cpus(const std::string& path) {
  auto list = os::read_isolated_cpus_text(path);
  if (!list) return list.error();
  if (list->empty()) return CpuSet();
  auto set = CpuSet::parse_list(*list);
  if (!set)
    return set.error().with_context("cannot read isolated CPUs from " +
                                    (path.empty() ? std::string("the kernel") : path));
  return set;
}

}  // namespace threadmap::plan
