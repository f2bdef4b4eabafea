#include "src/os/sysfs.hpp"

#include <cerrno>

#include "src/os/files.hpp"

namespace threadmap::os {

Result<std::string> read_isolated_cpus_text(const std::string& path) {
  const std::string file = path.empty() ? "/sys/devices/system/cpu/isolated" : path;
  auto text = read_file(file, 1 << 16);
  if (!text) {
    if (text.error().code.value() == ENOENT) return std::string();
    return text.error();
  }
  std::string list = *text;
  while (!list.empty() && (list.back() == '\n' || list.back() == ' ')) list.pop_back();
  return list;
}

}  // namespace threadmap::os
