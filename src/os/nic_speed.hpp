// Link speeds of this machine's network ports as the kernel reports them: each netdev's
// /sys/class/net/NAME/speed (Mb/s, -1 when the link is down or the driver does not say) and each
// RDMA device's /sys/class/infiniband/NAME/ports/N/rate ("100 Gb/sec (4X EDR)") with its
// link_layer (InfiniBand, or Ethernet for RoCE). The parsers are pure; read_nic_speeds() is the
// one reader. Core ranks NICs with these (a recorded topology has no speeds).
#pragma once

#include <string>
#include <vector>

namespace threadmap::os {

/// One netdev or RDMA device.
struct NicSpeed {
  std::string name;        ///< "eth0", "mlx5_0"
  bool rdma = false;       ///< from /sys/class/infiniband (else /sys/class/net)
  long mbps = -1;          ///< link speed in Mb/s, the fastest port's; -1 unknown
  std::string link_layer;  ///< RDMA devices: "InfiniBand" or "Ethernet"; "" unknown
};

/// "25000" -> 25000; "-1", "" or anything else -> -1.
long parse_net_speed_mbps(const std::string& text);

/// "100 Gb/sec (4X EDR)" -> 100000, "2.5 Gb/sec (1X SDR)" -> 2500; -1 when it does not parse.
long parse_rdma_rate_mbps(const std::string& text);

/// Reads ROOT/sys/class/net/* and ROOT/sys/class/infiniband/*/ports/* (`root` "" = the live
/// machine). A directory that cannot be listed gives no entries; an unreadable file leaves -1.
std::vector<NicSpeed> read_nic_speeds(const std::string& root = "");

}  // namespace threadmap::os
