// Devices (GPUs, NICs, NVMe) from hwloc's own recorded GPU servers. Every expected locality is
// hwloc-calc's on the same file: `hwloc-calc -i F --po -I pu pci=BUSID` (CPUs) and
// `hwloc-calc -i F --po -I numa pci=BUSID` (node), run with hwloc 2.9; the integration test
// tests/integration/core/devices_against_hwloc.sh repeats that comparison live for every device.
#include "src/core/devices.hpp"

#include <gtest/gtest.h>

#include <string>

namespace threadmap {
namespace {

Topology load(const std::string& name) {
  auto t =
      Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/gpu/" + name + ".xml");
  EXPECT_TRUE(t.ok()) << name << ": " << (t.ok() ? "" : t.error().message);
  if (!t.ok()) std::abort();
  return *t;
}

std::vector<const Device*> of_kind(const std::vector<Device>& devices, DeviceKind kind) {
  std::vector<const Device*> out;
  for (const Device& d : devices)
    if (d.kind == kind) out.push_back(&d);
  return out;
}

TEST(Devices, DgxTwoSixteenGpusInBusOrderWithHwlocsLocality) {
  Topology t = load("nvidia-dgx2-16x-v100");
  std::vector<Device> devices = devices_from_hwloc(t);
  auto gpus = of_kind(devices, DeviceKind::gpu);
  ASSERT_EQ(gpus.size(), 16u);
  // lstopo lists them 34,36,39,3b,57,59,5c,5e (package 0) then b7 ... e7 (package 1).
  const char* bus[] = {"0000:34:00.0", "0000:36:00.0", "0000:39:00.0", "0000:3b:00.0",
                       "0000:57:00.0", "0000:59:00.0", "0000:5c:00.0", "0000:5e:00.0",
                       "0000:b7:00.0", "0000:b9:00.0", "0000:bc:00.0", "0000:be:00.0",
                       "0000:e0:00.0", "0000:e2:00.0", "0000:e5:00.0", "0000:e7:00.0"};
  for (int i = 0; i < 16; ++i) {
    SCOPED_TRACE(bus[i]);
    EXPECT_EQ(gpus[static_cast<size_t>(i)]->bus_id, bus[i]);
    EXPECT_EQ(gpus[static_cast<size_t>(i)]->index, i);
    // hwloc-calc: pci=0000:34:00.0 -> PUs 0,1 node 0; pci=0000:b7:00.0 -> PUs 24,25 node 1.
    EXPECT_EQ(gpus[static_cast<size_t>(i)]->cpus.to_list(), i < 8 ? "0-1" : "24-25");
    EXPECT_EQ(gpus[static_cast<size_t>(i)]->numa_node, i < 8 ? 0 : 1);
    EXPECT_EQ(gpus[static_cast<size_t>(i)]->vendor_id, 0x10deu);
    EXPECT_EQ(gpus[static_cast<size_t>(i)]->model, "Tesla V100-SXM3-32GB-H");  // NVML's GPUModel
  }
  // The UUID the file's nvml0 OS device records (info NVIDIAUUID).
  EXPECT_EQ(gpus[0]->uuid, "GPU-d3977428-7a30-086b-2e20-5c1eeed647c6");
  EXPECT_TRUE(of_kind(devices, DeviceKind::nic).empty());  // NVSwitches are bridges, not NICs
}

TEST(Devices, GpuTermsResolveToTheGpusLocalCpus) {
  Topology t = load("nvidia-dgx2-16x-v100");
  EXPECT_EQ(t.resolve("gpu:0")->to_list(), "0-1");
  EXPECT_EQ(t.resolve("gpu:9")->to_list(), "24-25");
  EXPECT_EQ(t.resolve("gpu:GPU-d3977428-7a30-086b-2e20-5c1eeed647c6")->to_list(), "0-1");
  EXPECT_EQ(t.resolve("gpu:GPU-d3977428")->to_list(), "0-1");  // a unique prefix, as CUDA takes
  EXPECT_EQ(t.resolve("pci:b7:00.0")->to_list(), "24-25");
  EXPECT_EQ(t.resolve("PCI:0000:B7:00.0")->to_list(), "24-25");
  EXPECT_EQ(t.resolve("gpu:0 gpu:15")->to_list(), "0-1,24-25");
  EXPECT_EQ(t.resolve("gpu:8+core:0")->to_list(), "0,24-25");
}

TEST(Devices, BadDeviceTermsSayWhatExists) {
  Topology t = load("nvidia-dgx2-16x-v100");
  auto nine = Topology::load_xml(std::string(THREADMAP_TEST_DATA) +
                                 "/topologies/gpu/ibm-power8-4x-p100.xml");
  ASSERT_TRUE(nine.ok());
  auto out_of_range = nine->resolve("gpu:9");
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_NE(out_of_range.error().message.find("there are 4 GPUs (gpu:0 to gpu:3"),
            std::string::npos)
      << out_of_range.error().message;
  auto nic = t.resolve("nic:nope");
  ASSERT_FALSE(nic.ok());
  EXPECT_NE(nic.error().message.find("no NIC named 'nope'"), std::string::npos);
  EXPECT_FALSE(t.resolve("gpu:GPU-00000000-0000").ok());
  EXPECT_FALSE(t.resolve("pci:zz:00.0").ok());
  EXPECT_FALSE(t.resolve("pci:0000:01:00.0").ok());  // not a GPU, NIC or NVMe drive
  auto vm =
      Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/amd-2x-epyc7763-zen3.xml");
  ASSERT_TRUE(vm.ok());
  auto none = vm->resolve("gpu:0");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no GPU found"), std::string::npos) << none.error().message;
}

TEST(Devices, PowerEightGpusSitOnTheirChipsNodes) {
  Topology t = load("ibm-power8-4x-p100");
  std::vector<Device> devices = devices_from_hwloc(t);
  auto gpus = of_kind(devices, DeviceKind::gpu);
  ASSERT_EQ(gpus.size(), 4u);
  // PCI domains 0002, 0003 (node 0) and 000a, 000b (node 1), as hwloc-calc reports them.
  EXPECT_EQ(gpus[0]->bus_id, "0002:01:00.0");
  EXPECT_EQ(gpus[3]->bus_id, "000b:01:00.0");
  EXPECT_EQ(gpus[1]->cpus.to_list(), "0-1,8-9,16-17,24-25");
  EXPECT_EQ(gpus[2]->cpus.to_list(), "80-81,88-89,96-97,104-105");
  EXPECT_EQ(gpus[0]->numa_node, 0);
  EXPECT_EQ(gpus[2]->numa_node, 1);
  EXPECT_EQ(gpus[0]->model, "Tesla P100-SXM2-16GB");
  std::vector<std::string> names = gpus[0]->os_names;
  EXPECT_NE(std::find(names.begin(), names.end(), "cuda0"), names.end());
}

TEST(Devices, NicsCarryTheirNetdevsAndNodes) {
  Topology t = load("intel-4x-xeon-6nic-pci");
  std::vector<Device> devices = devices_from_hwloc(t);
  auto nics = of_kind(devices, DeviceKind::nic);
  ASSERT_EQ(nics.size(), 8u);  // 02:00.0/1, 32:00.0/1, 62:00.0/1, 92:00.0/1 (Broadcom)
  EXPECT_EQ(nics[2]->bus_id, "0000:32:00.0");
  EXPECT_EQ(nics[2]->netdevs, std::vector<std::string>{"eth2"});
  EXPECT_EQ(nics[2]->numa_node, 1);  // hwloc-calc -I numa os=eth2 -> 1
  // hwloc-calc --po -I pu os=eth2: 24,28,...,47 (node 1's 24 PUs).
  EXPECT_EQ(t.resolve("nic:eth2")->to_list(), "24-47");
  EXPECT_EQ(t.resolve("nic:eth5")->to_list(), "48-71");
  // The AMD VGA adapter at 01:00.0 is a GPU by class and vendor (a server's display).
  EXPECT_EQ(of_kind(devices, DeviceKind::gpu).size(), 1u);
}

TEST(Devices, MixedVendorsNumberEachVendorApartAndCountNvidiaFirst) {
  Topology t = load("intel-2x-xeon-gpu-ib-wholeio");
  std::vector<Device> devices = devices_from_hwloc(t);
  auto compute = compute_gpus(devices);
  ASSERT_EQ(compute.size(), 3u);  // 03:00.0, 83:00.0, 84:00.0 (NVIDIA); the AMD 84:00.1 apart
  EXPECT_EQ(compute[0]->bus_id, "0000:03:00.0");
  EXPECT_EQ(compute[2]->bus_id, "0000:84:00.0");
  for (const Device& d : devices) {
    if (d.bus_id == "0000:84:00.1") {
      EXPECT_EQ(d.index, 0);  // AMD's own first
    }
  }
  // The InfiniBand HCA (class 0207, ib0 + mlx5_0): hwloc-calc --po -I pu os=mlx5_0 gives
  // 8-15,24-31 and -I numa gives 1 (the file reuses its bus id 04:00.0 for a SAS controller on
  // node 0, so only the OS name is unambiguous to hwloc-calc).
  auto found = find_device(devices, "nic:mlx5_0");
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ((*found)->rdma, std::vector<std::string>{"mlx5_0"});
  EXPECT_EQ((*found)->netdevs, std::vector<std::string>{"ib0"});
  EXPECT_EQ((*found)->cpus.to_list(), "8-15,24-31");
  EXPECT_EQ((*found)->numa_node, 1);
}

TEST(Devices, NearestNicPrefersTheGpusNodeAndNamesNoneFarAway) {
  Topology t = load("intel-2x-xeon-gpu-ib-wholeio");
  std::vector<Device> devices = devices_from_hwloc(t);
  auto compute = compute_gpus(devices);
  std::string why;
  // GPU 0 (03:00.0) is on node 0, every NIC on node 1: none is named.
  EXPECT_EQ(nearest_nic(devices, *compute[0], &why), nullptr);
  EXPECT_NE(why.find("no NIC"), std::string::npos);
  // GPU 2 (84:00.0) shares its PCIe bridges with the HCA: that one, over eth0 on the same node.
  const Device* near_last = nearest_nic(devices, *compute[2], &why);
  ASSERT_NE(near_last, nullptr);
  EXPECT_EQ(near_last->rdma, std::vector<std::string>{"mlx5_0"}) << why;
  EXPECT_NE(why.find("PCIe"), std::string::npos) << why;
  // No NIC at all: none named, and why.
  Topology dgx = load("nvidia-dgx2-16x-v100");
  std::vector<Device> none = devices_from_hwloc(dgx);
  EXPECT_EQ(nearest_nic(none, *compute_gpus(none)[0], &why), nullptr);
  EXPECT_NE(why.find("no NIC"), std::string::npos);
}

TEST(Devices, CanonicalBusIds) {
  EXPECT_EQ(canonical_bus_id("34:00.0"), "0000:34:00.0");
  EXPECT_EQ(canonical_bus_id("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(canonical_bus_id("000a:01:00.0"), "000a:01:00.0");
  EXPECT_EQ(canonical_bus_id("34:00"), "");
  EXPECT_EQ(canonical_bus_id("gpu0"), "");
  EXPECT_EQ(canonical_bus_id("34:20.0"), "");  // device 0x20 > 0x1f
}

TEST(DevicesSysfs, AFirmwareNodeThatDisagreesWithLocalCpusIsSaid) {
  // The sysfs snapshot hwloc's tests replay (40intel64-2g2n4c+pci): the InfiniBand HCA at
  // 43:00.0 has numa_node 2 but local_cpulist 0-39 (every CPU); hwloc, reading local_cpus,
  // attached it to the whole machine (tests/data/sysfs/40intel64-2g2n4c+pci.xml is hwloc 2.9's
  // replay of the snapshot).
  auto t = Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/sysfs/40intel64-2g2n4c+pci.xml");
  ASSERT_TRUE(t.ok());
  std::vector<Device> devices = devices_from_hwloc(*t);
  std::vector<PciFactsView> sysfs = {
      {"0000:43:00.0", 0x0c06, 0x1077, 2, "0-39"},   // the files' values
      {"0000:02:00.0", 0x0200, 0x14e4, -1, "0-39"},  // agrees: no node, every CPU
  };
  std::vector<std::string> notes = compare_with_sysfs(devices, sysfs, 4);
  bool said = false;
  for (const std::string& n : notes)
    if (n.find("0000:43:00.0: sysfs numa_node says 2, hwloc places the NIC on node none") == 0)
      said = true;
  EXPECT_TRUE(said) << ::testing::PrintToString(notes);
  for (const std::string& n : notes)
    EXPECT_EQ(n.find("0000:02:00.0: sysfs"), std::string::npos) << n;
  // hwloc's other NICs, absent from this partial list, are said too.
  bool absent = false;
  for (const std::string& n : notes)
    if (n.find("0000:03:00.0: hwloc lists a NIC that sysfs does not") == 0) absent = true;
  EXPECT_TRUE(absent);
  // A firmware -1 on a one-node machine is no disagreement.
  EXPECT_TRUE(compare_with_sysfs({}, {}, 1).empty());
}

TEST(DevicesManagement, TheLibrarysUuidAndMigInstancesJoinByBusId) {
  Topology t = load("ibm-power8-4x-p100");
  std::vector<Device> devices = devices_from_hwloc(t);
  std::vector<std::string> notes;
  merge_management(
      devices,
      {{"0003:01:00.0", 1, "GPU-aaaa", "Tesla P100", {{0, "MIG-1111"}, {1, "MIG-2222"}}},
       {"0004:01:00.0", 4, "GPU-bbbb", "ghost", {}}},
      "NVML", notes);
  auto found = find_device(devices, "gpu:MIG-2222");
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ((*found)->bus_id, "0003:01:00.0");
  EXPECT_EQ((*found)->management_index, 1);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("which hwloc's topology does not"), std::string::npos) << notes[0];
  // The legacy MIG form names its GPU's UUID.
  EXPECT_EQ((*find_device(devices, "gpu:MIG-GPU-aaaa/1/0"))->bus_id, "0003:01:00.0");
}

}  // namespace
}  // namespace threadmap
