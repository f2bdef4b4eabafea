// A rank's NIC and the variables for its transport, on device lists written for each case from
// the parts' published PCI ids (Mellanox ConnectX 15b3, HPE Cassini 17db:0501, AWS EFA
// 1d0f:efa0, Intel I350 8086:1521 and I210 8086:1537, as the kernel's drivers list them).
#include "src/cluster/nic_choice.hpp"

#include <gtest/gtest.h>

namespace threadmap::cluster {
namespace {

Device nic(const char* bus, unsigned vendor, unsigned device, unsigned cls,
           std::vector<std::string> netdevs, std::vector<std::string> rdma,
           std::vector<unsigned long long> path, int node = 0) {
  Device d;
  d.kind = DeviceKind::nic;
  d.bus_id = bus;
  d.vendor_id = vendor;
  d.device_id = device;
  d.class_id = cls;
  d.netdevs = std::move(netdevs);
  d.rdma = std::move(rdma);
  d.pci_path = std::move(path);
  d.numa_node = node;
  d.cpus = *CpuSet::parse_list(node == 0 ? "0-7" : "8-15");
  return d;
}

Device gpu(std::vector<unsigned long long> path, int node = 0) {
  Device d = nic("0000:41:00.0", 0x10de, 0x20b0, 0x0302, {}, {}, std::move(path), node);
  d.kind = DeviceKind::gpu;
  return d;
}

std::map<std::string, NicFacts> facts(const std::vector<Device>& devices,
                                      std::map<std::string, NicEvidence> ev = {}) {
  std::map<std::string, NicFacts> out;
  for (const Device& d : devices) out[d.bus_id] = classify_nic(d, ev[d.bus_id]);
  return out;
}

std::string value(const std::vector<std::pair<std::string, std::string>>& vars,
                  const std::string& name) {
  for (const auto& [n, v] : vars)
    if (n == name) return v;
  return "<unset>";
}

TEST(NicChoice, AManagementPortOnTheGpusRootComplexLosesToTheHcaOnItsNode) {
  // Like a recorded Corona node: eno1 (I350) behind the GPU's root complex, a ConnectX HCA
  // (InfiniBand class 0x0207) elsewhere on the same NUMA node.
  std::vector<Device> d = {nic("0000:03:00.0", 0x8086, 0x1521, 0x0200, {"eno1"}, {}, {1, 2}),
                           nic("0000:33:00.0", 0x15b3, 0x101b, 0x0207, {"ib0"}, {"mlx5_0"}, {9})};
  NicChoice c = choose_nic(d, facts(d), gpu({1, 3}));
  ASSERT_NE(c.nic, nullptr);
  EXPECT_EQ(c.nic->bus_id, "0000:33:00.0");
  EXPECT_EQ(c.facts.transport, NicTransport::infiniband);
  EXPECT_NE(c.why.find("link speed unknown"), std::string::npos) << c.why;
  EXPECT_NE(c.why.find("not the management port(s) eno1"), std::string::npos) << c.why;
  auto vars = nic_env(c, {}, nullptr);
  EXPECT_EQ(value(vars, "UCX_NET_DEVICES"), "mlx5_0:1");
  EXPECT_EQ(value(vars, "NCCL_IB_HCA"), "=mlx5_0");
  // Alone, the management port is not named at all.
  std::vector<Device> only = {d[0]};
  NicChoice none = choose_nic(only, facts(only), gpu({1, 3}));
  EXPECT_EQ(none.nic, nullptr);
  EXPECT_NE(none.why.find("only slow management port(s)"), std::string::npos) << none.why;
}

TEST(NicChoice, SlingshotIsDrivenThroughLibfabricNotUcxOrNcclIb) {
  // Like Tioga: ens2 (I210, PCIe x1) and hsi0 (Cassini) both near; the bus-id tie went to ens2.
  std::vector<Device> d = {nic("0000:94:00.0", 0x8086, 0x1537, 0x0200, {"ens2"}, {}, {5, 6}),
                           nic("0000:c5:00.0", 0x17db, 0x0501, 0x0200, {"hsi0"}, {}, {5, 7})};
  NicChoice c = choose_nic(d, facts(d), gpu({5, 8}));
  ASSERT_NE(c.nic, nullptr);
  EXPECT_EQ(c.nic->netdevs.front(), "hsi0");
  auto vars = nic_env(c, {}, nullptr);
  ASSERT_EQ(vars.size(), 1u);
  EXPECT_EQ(value(vars, "FI_PROVIDER"), "cxi");
}

TEST(NicChoice, EfaGetsTheEfaProviderOnly) {
  std::vector<Device> d = {nic("0000:c5:00.0", 0x1d0f, 0xefa0, 0x0200, {}, {"rdmap197s0"}, {4}),
                           nic("0000:c6:00.0", 0x1d0f, 0xec20, 0x0200, {"eth0"}, {}, {4})};
  NicChoice c = choose_nic(d, facts(d), gpu({4, 5}));
  ASSERT_NE(c.nic, nullptr);
  EXPECT_EQ(c.facts.transport, NicTransport::efa);
  auto vars = nic_env(c, {}, nullptr);
  ASSERT_EQ(vars.size(), 1u);
  EXPECT_EQ(value(vars, "FI_PROVIDER"), "efa");
}

TEST(NicChoice, NcclIbHcaListsTheRanksRailFirstAndKeepsTheOthers) {
  std::vector<Device> d = {nic("0000:0c:00.0", 0x15b3, 0x101b, 0x0207, {}, {"mlx5_0"}, {1, 2}),
                           nic("0000:12:00.0", 0x15b3, 0x101b, 0x0207, {}, {"mlx5_1"}, {3, 4}),
                           nic("0000:8a:00.0", 0x15b3, 0x101b, 0x0207, {}, {"mlx5_2"}, {7}, 1)};
  NicChoice c = choose_nic(d, facts(d), gpu({3, 5}));
  ASSERT_NE(c.nic, nullptr);
  auto vars = nic_env(c, {}, nullptr);
  EXPECT_EQ(value(vars, "NCCL_IB_HCA"), "=mlx5_1,mlx5_0,mlx5_2");
  EXPECT_EQ(value(vars, "UCX_NET_DEVICES"), "mlx5_1:1");
  // Asked for by the user: kept, and said.
  std::vector<std::string> kept;
  auto user = nic_env(c, {{"NCCL_IB_HCA", "=mlx5_1"}}, &kept);
  EXPECT_EQ(value(user, "NCCL_IB_HCA"), "<unset>");
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0], "NCCL_IB_HCA==mlx5_1 kept from the environment");
}

TEST(NicChoice, AKnownFasterLinkWinsAndRoceIsVerbs) {
  std::vector<Device> d = {nic("0000:01:00.0", 0x8086, 0x159b, 0x0200, {"ens1"}, {}, {1, 2}),
                           nic("0000:02:00.0", 0x8086, 0x1592, 0x0200, {"ens2"}, {}, {1, 3})};
  std::map<std::string, NicEvidence> ev;
  ev["0000:01:00.0"].kernel_mbps = 25000;
  ev["0000:02:00.0"].kernel_mbps = 100000;
  NicChoice c = choose_nic(d, facts(d, ev), gpu({1, 4}));
  ASSERT_NE(c.nic, nullptr);
  EXPECT_EQ(c.nic->netdevs.front(), "ens2");
  auto vars = nic_env(c, {}, nullptr);
  EXPECT_EQ(value(vars, "NCCL_SOCKET_IFNAME"), "=ens2");
  EXPECT_EQ(value(vars, "UCX_NET_DEVICES"), "ens2");
  // A verbs device whose port says Ethernet is RoCE; 1 Gb/s by the kernel is a management port.
  Device roce = nic("0000:03:00.0", 0x15b3, 0x1017, 0x0200, {"ens3"}, {"mlx5_0"}, {1});
  NicEvidence roce_ev;
  roce_ev.link_layer = "Ethernet";
  EXPECT_EQ(classify_nic(roce, roce_ev).transport, NicTransport::roce);
  NicEvidence slow;
  slow.kernel_mbps = 1000;
  EXPECT_TRUE(classify_nic(d[0], slow).management);
}

TEST(NicChoice, EqualRailsAreDealtOutByGpuIndex) {
  // Like Lassen: two ports of one ConnectX (functions .0 and .1) on the root complex of GPUs 0
  // and 1: each GPU gets its own rail, and NCCL_IB_HCA lists it first.
  std::vector<Device> d = {nic("0003:01:00.0", 0x15b3, 0x1019, 0x0207, {"ib0"}, {"mlx5_0"}, {1}),
                           nic("0003:01:00.1", 0x15b3, 0x1019, 0x0207, {"ib1"}, {"mlx5_1"}, {1})};
  Device g0 = gpu({1, 2}), g1 = gpu({1, 3});
  g0.index = 0;
  g1.index = 1;
  NicChoice c0 = choose_nic(d, facts(d), g0), c1 = choose_nic(d, facts(d), g1);
  ASSERT_TRUE(c0.nic && c1.nic);
  EXPECT_EQ(c0.nic->rdma.front(), "mlx5_0");
  EXPECT_EQ(c1.nic->rdma.front(), "mlx5_1");
  EXPECT_EQ(value(nic_env(c1, {}, nullptr), "NCCL_IB_HCA"), "=mlx5_1,mlx5_0");
}

}  // namespace
}  // namespace threadmap::cluster
