#include "src/os/nic_speed.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "src/os/files.hpp"

namespace threadmap::os {
namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  return text.substr(start);
}

std::string small_file(const std::string& path) {
  auto text = read_file(path, 4096);
  return text ? trimmed(*text) : std::string();
}

std::vector<std::string> entries(const std::string& path) {
  auto names = list_directory(path);
  if (!names) return {};
  std::vector<std::string> out;
  for (const std::string& n : *names)
    if (n != "." && n != "..") out.push_back(n);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

long parse_net_speed_mbps(const std::string& text) {
  std::string t = trimmed(text);
  if (t.empty() || t.size() > 9) return -1;
  for (char c : t)
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
  long v = std::strtol(t.c_str(), nullptr, 10);
  return v > 0 ? v : -1;
}

long parse_rdma_rate_mbps(const std::string& text) {
  std::string t = trimmed(text);
  char* end = nullptr;
  double gbps = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || gbps <= 0 || gbps > 1e6) return -1;
  std::string unit = trimmed(std::string(end));
  if (unit.rfind("Gb/sec", 0) != 0) return -1;
  return static_cast<long>(gbps * 1000 + 0.5);
}

std::vector<NicSpeed> read_nic_speeds(const std::string& root) {
  std::vector<NicSpeed> out;
  const std::string net = root + "/sys/class/net";
  for (const std::string& name : entries(net)) {
    if (name == "lo") continue;
    out.push_back({name, false, parse_net_speed_mbps(small_file(net + "/" + name + "/speed")), ""});
  }
  const std::string ib = root + "/sys/class/infiniband";
  for (const std::string& name : entries(ib)) {
    NicSpeed s{name, true, -1, ""};
    for (const std::string& port : entries(ib + "/" + name + "/ports")) {
      const std::string dir = ib + "/" + name + "/ports/" + port;
      s.mbps = std::max(s.mbps, parse_rdma_rate_mbps(small_file(dir + "/rate")));
      if (s.link_layer.empty()) s.link_layer = small_file(dir + "/link_layer");
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace threadmap::os
