// Kernel CPU lists from sysfs, as text: parsing them is core's job (CpuSet::parse_list).
#pragma once

#include <string>

#include "threadmap/result.hpp"

namespace threadmap::os {

/// /sys/devices/system/cpu/isolated (isolcpus=): a kernel CPU list, "" when nothing is isolated
/// or the file does not exist (older kernels, containers without sysfs). `path` overrides the
/// file (tests). Fails only when the file exists and cannot be read.
Result<std::string> read_isolated_cpus_text(const std::string& path = "");

}  // namespace threadmap::os
