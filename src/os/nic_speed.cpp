#include "src/os/nic_speed.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "src/os/small_text.hpp"

namespace threadmap::os {
long parse_net_speed_mbps(const std::string& text) {
  const std::string t(trimmed(text));
  if (t.empty() || t.size() > 9) return -1;
  for (char c : t)
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
  long v = std::strtol(t.c_str(), nullptr, 10);
  return v > 0 ? v : -1;
}

long parse_rdma_rate_mbps(const std::string& text) {
  const std::string t(trimmed(text));
  char* end = nullptr;
  double gbps = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || gbps <= 0 || gbps > 1e6) return -1;
  const std::string unit(trimmed(end));
  if (unit.rfind("Gb/sec", 0) != 0) return -1;
  return static_cast<long>(gbps * 1000 + 0.5);
}

std::vector<NicSpeed> read_nic_speeds(const std::string& root) {
  std::vector<NicSpeed> out;
  const std::string net = root + "/sys/class/net";
  for (const std::string& name : directory_entries(net)) {
    if (name == "lo") continue;
    out.push_back(
        {name, false, parse_net_speed_mbps(read_small_file(net + "/" + name + "/speed")), ""});
  }
  const std::string ib = root + "/sys/class/infiniband";
  for (const std::string& name : directory_entries(ib)) {
    NicSpeed s{name, true, -1, ""};
    for (const std::string& port : directory_entries(ib + "/" + name + "/ports")) {
      const std::string dir = ib + "/" + name + "/ports/" + port;
      s.mbps = std::max(s.mbps, parse_rdma_rate_mbps(read_small_file(dir + "/rate")));
      if (s.link_layer.empty()) s.link_layer = read_small_file(dir + "/link_layer");
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace threadmap::os
