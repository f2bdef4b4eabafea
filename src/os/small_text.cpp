#include "src/os/small_text.hpp"

#include "src/os/files.hpp"

namespace threadmap::os {

std::string read_small_file(const std::string& path, std::size_t max_bytes) {
  auto text = read_file(path, max_bytes);
  return text ? std::string(trimmed(*text)) : std::string();
}

std::vector<std::string> directory_entries(const std::string& path) {
  auto names = list_directory(path);
  return names ? *names : std::vector<std::string>{};
}

}  // namespace threadmap::os
