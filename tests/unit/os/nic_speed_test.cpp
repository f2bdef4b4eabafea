// Link speeds as the kernel writes them: /sys/class/net/*/speed in Mb/s and the InfiniBand
// rate text ("100 Gb/sec (4X EDR)", the kernel's ib_sysfs format), on a small sysfs tree this
// test writes itself.
#include "src/os/nic_speed.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace threadmap::os {
namespace {

TEST(NicSpeed, ParsesTheKernelsTexts) {
  EXPECT_EQ(parse_net_speed_mbps("25000\n"), 25000);
  EXPECT_EQ(parse_net_speed_mbps("-1\n"), -1);  // link down
  EXPECT_EQ(parse_net_speed_mbps(""), -1);
  EXPECT_EQ(parse_rdma_rate_mbps("100 Gb/sec (4X EDR)\n"), 100000);
  EXPECT_EQ(parse_rdma_rate_mbps("2.5 Gb/sec (1X SDR)"), 2500);
  EXPECT_EQ(parse_rdma_rate_mbps("400 Gb/sec (4X NDR)"), 400000);
  EXPECT_EQ(parse_rdma_rate_mbps("fast"), -1);
}

void write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(NicSpeed, ReadsNetdevsAndRdmaPorts) {
  char pattern[] = "/tmp/tm-nic-speed-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::filesystem::path root = pattern;
  write(root / "sys/class/net/eno1/speed", "1000\n");
  write(root / "sys/class/net/ib0/speed", "-1\n");
  write(root / "sys/class/net/lo/speed", "\n");
  write(root / "sys/class/infiniband/mlx5_0/ports/1/rate", "200 Gb/sec (4X HDR)\n");
  write(root / "sys/class/infiniband/mlx5_0/ports/1/link_layer", "InfiniBand\n");
  std::vector<NicSpeed> speeds = read_nic_speeds(root.string());
  std::filesystem::remove_all(root);
  ASSERT_EQ(speeds.size(), 3u);  // lo is left out
  EXPECT_EQ(speeds[0].name, "eno1");
  EXPECT_EQ(speeds[0].mbps, 1000);
  EXPECT_EQ(speeds[1].name, "ib0");
  EXPECT_EQ(speeds[1].mbps, -1);
  EXPECT_EQ(speeds[2].name, "mlx5_0");
  EXPECT_TRUE(speeds[2].rdma);
  EXPECT_EQ(speeds[2].mbps, 200000);
  EXPECT_EQ(speeds[2].link_layer, "InfiniBand");
}

}  // namespace
}  // namespace threadmap::os
