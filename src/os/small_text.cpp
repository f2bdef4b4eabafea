#include "src/os/small_text.hpp"

#include <cctype>

#include "src/os/files.hpp"

namespace threadmap::os {

std::string_view trimmed(std::string_view text) {
  auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

std::string read_small_file(const std::string& path, std::size_t max_bytes) {
  auto text = read_file(path, max_bytes);
  return text ? std::string(trimmed(*text)) : std::string();
}

std::vector<std::string> directory_entries(const std::string& path) {
  auto names = list_directory(path);
  return names ? *names : std::vector<std::string>{};
}

}  // namespace threadmap::os
