// The device table (topo's text, the report page), the devices JSON and the summary counts, on
// hwloc's recorded DGX-2 and on a device list with a disagreement note.
#include "src/render/device_view.hpp"

#include <gtest/gtest.h>

namespace threadmap::render {
namespace {

DeviceInventory dgx2() {
  auto t = Topology::load_xml(std::string(THREADMAP_TEST_DATA) +
                              "/topologies/gpu/nvidia-dgx2-16x-v100.xml");
  EXPECT_TRUE(t.ok());
  DeviceInventory inv;
  inv.devices = devices_from_hwloc(*t);
  inv.sources = "hwloc I/O objects";
  return inv;
}

TEST(DeviceView, TextTableOneRowPerDeviceThenTheNotes) {
  DeviceInventory inv = dgx2();
  inv.notes = {"0000:34:00.0: sysfs numa_node says 1, hwloc places the GPU on node 0"};
  std::string text = device_table_text(inv);
  EXPECT_EQ(text.rfind("devices (hwloc I/O objects; GPU index = the vendor runtime's (NVIDIA: "
                       "PCI bus order;",
                       0),
            0u)
      << text;
  // index (the runtime's) and bus (PCI bus order) agree on NVIDIA.
  EXPECT_NE(
      text.find("gpu        15   15  0000:e7:00.0  NVIDIA Tesla V100-SXM3-32GB-H     1  24-25"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("note: 0000:34:00.0: sysfs numa_node says 1"), std::string::npos);
  EXPECT_EQ(device_counts_text(inv), "16 GPUs, 0 NICs, 0 NVMe");
  EXPECT_EQ(device_counts_text(DeviceInventory{}), "no GPU, NIC or NVMe device");
  EXPECT_NE(device_table_text(DeviceInventory{}).find("devices: none"), std::string::npos);
}

TEST(DeviceView, JsonKeysAsDocumented) {
  DeviceInventory inv = dgx2();
  nlohmann::json doc;
  add_devices(doc, inv);
  ASSERT_EQ(doc["devices"].size(), 16u);
  const nlohmann::json& g = doc["devices"][8];
  EXPECT_EQ(g["kind"], "gpu");
  EXPECT_EQ(g["pci_bus_id"], "0000:b7:00.0");
  EXPECT_EQ(g["index"], 8);
  EXPECT_EQ(g["bus_index"], 8);
  EXPECT_EQ(g["runtime_order"], "PCI bus order (nvidia-smi's)");
  EXPECT_TRUE(g["partition"].is_null());
  EXPECT_EQ(g["apu"], false);
  EXPECT_EQ(g["numa_node"], 1);
  EXPECT_EQ(g["cpus"], "24-25");
  EXPECT_EQ(g["vendor_id"], "10de");
  EXPECT_EQ(g["class_id"], "0302");
  EXPECT_TRUE(g["management_index"].is_null());
  EXPECT_EQ(g["uuid"].get<std::string>().rfind("GPU-", 0), 0u);
  for (const char* key :
       {"device_id", "vendor", "model", "mig", "netdevs", "rdma", "block", "os_names"})
    EXPECT_TRUE(g.contains(key)) << key;
  EXPECT_EQ(doc["device_sources"], "hwloc I/O objects");
  EXPECT_TRUE(doc["device_notes"].is_array());
}

TEST(DeviceView, ReportTableIsEscapedAndSaysItsSource) {
  DeviceInventory inv = dgx2();
  inv.notes = {"a <note> & more"};
  std::string html = device_table_html(inv);
  EXPECT_NE(html.find("<h3>Devices</h3>"), std::string::npos);
  EXPECT_NE(html.find("0000:34:00.0"), std::string::npos);
  EXPECT_NE(html.find("a &lt;note&gt; &amp; more"), std::string::npos);
  EXPECT_NE(html.find("Source: hwloc I/O objects"), std::string::npos);
}

}  // namespace
}  // namespace threadmap::render
