// The sysfs PCI reader on a real machine's recorded sysfs (the PCI part of hwloc's test snapshot
// 40intel64-2g2n4c+pci, extracted for the test) and the pure parser on the kernel's spellings.
#include "src/os/pci_sysfs.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <string>

namespace threadmap::os {
namespace {

TEST(PciSysfsParse, KernelSpellings) {
  PciSysfsEntry e;
  e.bus_id = "0000:3B:00.0";
  e.class_text = "0x030200\n";
  e.vendor_text = "0x10de\n";
  e.device_text = "0x20b0";
  e.numa_node_text = "-1\n";
  e.local_cpulist_text = "0-23,48-71\n";
  PciDeviceFacts f = parse_pci_entry(e);
  EXPECT_EQ(f.bus_id, "0000:3b:00.0");
  EXPECT_EQ(f.class_id, 0x0302u);  // the programming-interface byte dropped, as hwloc does
  EXPECT_EQ(f.vendor_id, 0x10deu);
  EXPECT_EQ(f.device_id, 0x20b0u);
  EXPECT_TRUE(f.numa_node_read);
  EXPECT_EQ(f.numa_node, -1);  // the firmware gave none
  EXPECT_EQ(f.local_cpus, "0-23,48-71");
  e.numa_node_text = "";
  e.class_text = "garbage";
  PciDeviceFacts absent = parse_pci_entry(e);
  EXPECT_FALSE(absent.numa_node_read);
  EXPECT_EQ(absent.class_id, 0u);
  e.numa_node_text = "3x";
  EXPECT_FALSE(parse_pci_entry(e).numa_node_read);
}

// Extracted once for the suite (creating files is slow on a loaded machine).
class Snapshot : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char dir[] = "/tmp/tm-sysfs-XXXXXX";
    if (!mkdtemp(dir)) return;
    std::string cmd = "tar xzf '" + std::string(THREADMAP_TEST_DATA) +
                      "/sysfs/40intel64-2g2n4c+pci-pci.tar.gz' -C " + dir;
    if (std::system(cmd.c_str()) == 0) root_ = dir;
  }
  static void TearDownTestSuite() {
    if (!root_.empty()) (void)std::system(("rm -rf '" + root_ + "'").c_str());
  }
  void SetUp() override { ASSERT_FALSE(root_.empty()) << "tar could not extract the snapshot"; }
  static inline std::string root_;
};

TEST_F(Snapshot, ReadsClassVendorNodeCpusAndNames) {
  auto devices = read_pci_devices(root_ + "/40intel64-2g2n4c+pci");
  ASSERT_TRUE(devices.ok()) << devices.error().message;
  auto at = [&](const std::string& bus) -> const PciDeviceFacts* {
    for (const PciDeviceFacts& d : *devices)
      if (d.bus_id == bus) return &d;
    return nullptr;
  };
  // The snapshot's own files: 43:00.0 is a QLogic InfiniBand HCA (class 0x0c0600) whose
  // numa_node says 2 while its local_cpulist says 0-39; its netdev ib0 and RDMA device qib0.
  const PciDeviceFacts* hca = at("0000:43:00.0");
  ASSERT_NE(hca, nullptr);
  EXPECT_EQ(hca->class_id, 0x0c06u);
  EXPECT_EQ(hca->vendor_id, 0x1077u);
  EXPECT_EQ(hca->numa_node, 2);
  EXPECT_EQ(hca->local_cpus, "0-39");
  EXPECT_EQ(hca->netdevs, std::vector<std::string>{"ib0"});
  EXPECT_EQ(hca->rdma, std::vector<std::string>{"qib0"});
  const PciDeviceFacts* eth = at("0000:02:00.1");
  ASSERT_NE(eth, nullptr);
  EXPECT_EQ(eth->class_id, 0x0200u);
  EXPECT_EQ(eth->numa_node, -1);
  EXPECT_EQ(eth->netdevs, std::vector<std::string>{"eth1"});
  EXPECT_TRUE(std::is_sorted(devices->begin(), devices->end(),
                             [](const auto& a, const auto& b) { return a.bus_id < b.bus_id; }));
}

TEST_F(Snapshot, AMissingTreeIsAnError) {
  auto devices = read_pci_devices(root_ + "/no-such-machine");
  ASSERT_FALSE(devices.ok());
  EXPECT_NE(devices.error().message.find("no-such-machine"), std::string::npos);
}

}  // namespace
}  // namespace threadmap::os
