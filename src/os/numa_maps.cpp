// numa_maps parser and reader (see numa_maps.hpp).
#include "src/os/numa_maps.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <string>

#include "src/os/procfs.hpp"

namespace threadmap::os {
namespace {

// Decimal digits of `s` as a number; false when `s` is empty, has another character, or is
// too long to be a page count.
bool to_number(std::string_view s, std::uint64_t& out) {
  if (s.empty() || s.size() > 18) return false;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  out = v;
  return true;
}

struct Accumulator {
  std::map<int, NodePages> nodes;
  void add_line(std::string_view line) {
    std::vector<std::pair<int, std::uint64_t>> counts;  // (node, pages) of this mapping
    std::uint64_t page_kb = 4;
    size_t pos = 0;
    while (pos < line.size()) {
      while (pos < line.size() && line[pos] == ' ') ++pos;
      size_t end = line.find(' ', pos);
      if (end == std::string_view::npos) end = line.size();
      std::string_view token = line.substr(pos, end - pos);
      pos = end;
      size_t eq = token.find('=');
      if (eq == std::string_view::npos) continue;
      std::string_view key = token.substr(0, eq);
      std::uint64_t value = 0;
      if (!to_number(token.substr(eq + 1), value)) continue;
      if (key == "kernelpagesize_kB") {
        if (value > 0) page_kb = value;
      } else if (key.size() >= 2 && key[0] == 'N') {
        std::uint64_t node = 0;
        if (to_number(key.substr(1), node) && node < 65536)
          counts.emplace_back(static_cast<int>(node), value);
      }
    }
    for (auto [node, pages] : counts) {
      NodePages& n = nodes[node];
      n.node = node;
      n.pages += pages;
      n.bytes += pages * page_kb * 1024;
      if (page_kb > 4) n.huge_pages += pages;
    }
  }
};

}  // namespace

std::uint64_t NumaPages::total_pages() const {
  std::uint64_t sum = 0;
  for (const NodePages& n : nodes) sum += n.pages;
  return sum;
}

std::uint64_t NumaPages::total_bytes() const {
  std::uint64_t sum = 0;
  for (const NodePages& n : nodes) sum += n.bytes;
  return sum;
}

NumaPages parse_numa_maps(std::string_view text) {
  Accumulator acc;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    acc.add_line(text.substr(pos, end - pos));
    pos = end + 1;
  }
  NumaPages out;
  for (auto& [node, pages] : acc.nodes) out.nodes.push_back(pages);
  return out;
}

std::string numa_maps_path(pid_t pid) { return process_path(pid, "numa_maps"); }

Result<NumaPages> read_numa_pages(pid_t pid) {
  // numa_maps walks the page tables of every mapping: one line per mapping, so it can be far
  // larger than the small procfs files; read it in chunks to the end.
  const std::string path = numa_maps_path(pid);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT && ::access(process_path(pid, "").c_str(), F_OK) == 0)
      return Error::from_errno(ENOENT, "no " + path + " (kernel without NUMA support)");
    return Error::from_errno(e == ENOENT ? ESRCH : e, "cannot open " + path);
  }
  std::string text;
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      return Error::from_errno(e, "cannot read " + path);
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > (std::size_t{256} << 20)) break;  // bounded: 256 MiB of text
  }
  ::close(fd);
  if (text.empty())
    return Error::from_errno(ESRCH,
                             "process " + std::to_string(pid) + " has no mappings (it has exited)");
  return parse_numa_maps(text);
}

}  // namespace threadmap::os
