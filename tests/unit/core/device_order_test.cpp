// GPU numbers as the vendors' runtimes give them, on small topologies authored for these tests
// (tests/data/topologies/gpu/authored, see its README): ROCm's order from the rsmiN names hwloc's
// ROCm SMI backend records (ROCm SMI numbers devices as ROCm does), class 0x12 Instinct parts,
// partitions, an APU, Level Zero tiles. Each expected locality is the one hwloc-calc prints for
// the same OS device (`hwloc-calc --input FILE os=rsmi0 --intersect PU` -> 4,5,6,7), checked
// again at run time by scripts/check-public-topologies.sh.
#include <gtest/gtest.h>

#include "src/core/devices.hpp"

namespace threadmap {
namespace {

std::vector<Device> load(const std::string& name) {
  auto t =
      Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/gpu/authored/" + name);
  EXPECT_TRUE(t.ok()) << name;
  return t.ok() ? devices_from_hwloc(*t) : std::vector<Device>{};
}

const Device* gpu(const std::vector<Device>& devices, const std::string& term) {
  auto d = find_device(devices, term);
  EXPECT_TRUE(d.ok()) << term << ": " << d.error().message;
  return d.ok() ? *d : nullptr;
}

TEST(DeviceOrder, AmdGpusAreNumberedAsRocmNumbersThem) {
  std::vector<Device> devices = load("amd-4x-mi100-rsmi-nonbus.xml");
  std::vector<const Device*> gpus = compute_gpus(devices);
  ASSERT_EQ(gpus.size(), 4u);
  // rsmi0 is at bus 83, rsmi1 at a3, rsmi2 at 03, rsmi3 at 23.
  EXPECT_EQ(gpus[0]->bus_id, "0000:83:00.0");
  EXPECT_EQ(gpus[1]->bus_id, "0000:a3:00.0");
  EXPECT_EQ(gpus[2]->bus_id, "0000:03:00.0");
  EXPECT_EQ(gpus[2]->bus_index, 0);
  EXPECT_EQ(gpus[0]->runtime_order, "ROCm SMI names (rsmiN) recorded in the topology");
  const Device* zero = gpu(devices, "gpu:0");
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(zero->bus_id, "0000:83:00.0");
  EXPECT_EQ(zero->cpus.to_list(), "4-7");  // hwloc-calc os=rsmi0: 4,5,6,7
  auto past = find_device(devices, "gpu:4");
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.error().message.find("gpu:0 to gpu:3, in ROCm SMI names"), std::string::npos)
      << past.error().message;
}

TEST(DeviceOrder, AmdUuidsAreWrittenAsRocmWritesThem) {
  std::vector<Device> devices = load("amd-4x-mi100-rsmi-nonbus.xml");
  // hwloc records 4c04714172e6268 (15 digits); ROCm writes GPU- and 16, zero-padded.
  const Device* rsmi2 = gpu(devices, "gpu:2");
  ASSERT_NE(rsmi2, nullptr);
  EXPECT_EQ(rsmi2->uuid, "GPU-04c04714172e6268");
  EXPECT_EQ(gpu(devices, "gpu:GPU-04c04714172e6268"), rsmi2);
  EXPECT_EQ(gpu(devices, "gpu:4c04714172e6268"), rsmi2);  // lstopo's text, as a gpu: name
  auto nvidia = find_device(devices, "gpu:GPU-8932f937-d72c-4106-c12f-20bd9faed9f6");
  ASSERT_FALSE(nvidia.ok());
  EXPECT_NE(nvidia.error().message.find("an NVIDIA UUID"), std::string::npos);
  EXPECT_EQ(rocm_uuid("4c04714172e6268"), "GPU-04c04714172e6268");
  EXPECT_EQ(rocm_uuid("GPU-1"), "");
}

TEST(DeviceOrder, WithoutRocmsOwnNumbersGpuNIsRefused) {
  std::vector<Device> devices = load("amd-4x-mi100-rsmi-nonbus.xml");
  for (Device& d : devices) d.os_names.clear();
  number_gpus(devices);
  EXPECT_TRUE(compute_gpus(devices).front()->runtime_order.empty());
  auto n = find_device(devices, "gpu:1");
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.error().message.find("ROCm's order of these 4 AMD GPUs is not known here"),
            std::string::npos)
      << n.error().message;
  EXPECT_TRUE(find_device(devices, "pci:83:00.0").ok());
}

TEST(DeviceOrder, TheKfdTopologysOrderIsRocmsOrder) {
  std::vector<Device> devices = load("amd-4x-mi100-rsmi-nonbus.xml");
  std::vector<std::string> notes;
  // KFD node order (node numbers need not be contiguous): 03 first, then 23, a3, 83.
  ASSERT_TRUE(apply_rocm_order(
      devices, {{"0000:03:00.0", 2}, {"0000:23:00.0", 3}, {"0000:a3:00.0", 5}, {"0000:83:00.0", 7}},
      "KFD topology", notes));
  EXPECT_EQ(compute_gpus(devices)[0]->bus_id, "0000:03:00.0");
  EXPECT_EQ(compute_gpus(devices)[2]->bus_id, "0000:a3:00.0");
  EXPECT_FALSE(notes.empty());  // it disagrees with the rsmiN names: said
  std::vector<std::string> more;
  EXPECT_FALSE(apply_rocm_order(devices, {{"0000:03:00.0", 0}}, "KFD topology", more));
  ASSERT_FALSE(more.empty());
}

TEST(DeviceOrder, KfdNodesAtOnePciAddressArePartitions) {
  std::vector<Device> devices = load("amd-4x-mi100-rsmi-nonbus.xml");
  for (Device& d : devices) d.os_names.clear();  // as hwloc finds them on a machine: no rsmiN
  number_gpus(devices);
  // Five KFD GPU nodes: the GPU at 83 twice (two partitions).
  const std::vector<std::pair<std::string, std::string>> nodes = {
      {"0000:83:00.0", "GPU-0000000000000a01"},
      {"0000:83:00.0", "GPU-0000000000000a02"},
      {"0000:a3:00.0", ""},
      {"0000:03:00.0", ""},
      {"0000:23:00.0", ""}};
  split_amd_partitions(devices, nodes);
  std::vector<const Device*> gpus = compute_gpus(devices);
  ASSERT_EQ(gpus.size(), 5u);
  std::vector<std::string> notes;
  std::vector<std::pair<std::string, int>> order;
  for (size_t i = 0; i < nodes.size(); ++i) order.emplace_back(nodes[i].first, int(i) + 1);
  ASSERT_TRUE(apply_rocm_order(devices, order, "KFD topology", notes));
  gpus = compute_gpus(devices);
  EXPECT_EQ(gpus[0]->bus_id, "0000:83:00.0");
  EXPECT_EQ(gpus[0]->partition, 0);
  EXPECT_EQ(gpus[1]->partition, 1);
  EXPECT_EQ(gpus[1]->uuid, "GPU-0000000000000a02");
  EXPECT_EQ(gpus[4]->bus_id, "0000:23:00.0");
}

TEST(DeviceOrder, InstinctProcessingAcceleratorsAndPartitionsAreGpus) {
  std::vector<Device> devices = load("amd-mi300x-class12-partitions.xml");
  std::vector<const Device*> gpus = compute_gpus(devices);
  // Two MI300X (class 0x12), the second in two partitions; the Gaudi (0x1da3) is no GPU.
  ASSERT_EQ(gpus.size(), 3u);
  EXPECT_EQ(gpus[0]->class_id, 0x1200u);
  EXPECT_EQ(gpus[1]->bus_id, "0000:85:00.0");
  EXPECT_EQ(gpus[1]->partition, 0);
  EXPECT_EQ(gpus[2]->bus_id, "0000:85:00.0");
  EXPECT_EQ(gpus[2]->partition, 1);
  EXPECT_EQ(gpus[2]->uuid, "GPU-99990000aaaabbbb");
  EXPECT_EQ(gpus[2]->cpus.to_list(), "4-7");  // hwloc-calc os=rsmi2: 4,5,6,7
  EXPECT_FALSE(is_gpu_class(0x1200, 0x1da3));
  EXPECT_TRUE(is_gpu_class(0x1200, 0x1002));
}

TEST(DeviceOrder, MigInstancesAreDevicesOfTheirOwn) {
  auto t = Topology::load_xml(std::string(THREADMAP_TEST_DATA) +
                              "/topologies/gpu/ibm-power8-4x-p100.xml");
  ASSERT_TRUE(t.ok());
  std::vector<Device> devices = devices_from_hwloc(*t);
  std::vector<std::string> notes;
  // What NVML says of a GPU in MIG mode with two instances (as gpu_management reads it).
  merge_management(
      devices, {{"0003:01:00.0", 1, "GPU-aaaa", "Tesla P100", {{0, "MIG-1111"}, {1, "MIG-2222"}}}},
      "NVML", notes);
  split_mig_instances(devices);
  std::vector<const Device*> gpus = compute_gpus(devices);
  ASSERT_EQ(gpus.size(), 5u);
  const Device* two = gpu(devices, "gpu:MIG-2222");
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->partition, 1);
  EXPECT_EQ(two->bus_id, "0003:01:00.0");
  EXPECT_EQ(two->cpus, gpus[1]->cpus);  // its GPU's CPUs (hwloc-calc pci=0003:01:00.0)
  EXPECT_EQ(gpu(devices, "gpu:MIG-GPU-aaaa/1/0")->uuid, "MIG-1111");  // the GPU's first instance
  EXPECT_EQ(gpus[2]->index, 2);
  EXPECT_EQ(gpus[2]->bus_index, 1);
}

TEST(DeviceOrder, AnApuIsMarked) {
  std::vector<Device> devices = load("amd-2x-mi300a-apu.xml");
  std::vector<const Device*> gpus = compute_gpus(devices);
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_TRUE(gpus[1]->apu);
  EXPECT_EQ(gpus[1]->numa_node, 1);
  EXPECT_EQ(gpus[1]->cpus.to_list(), "4-7");  // hwloc-calc os=rsmi1: 4,5,6,7
}

TEST(DeviceOrder, LevelZeroTilesAreCounted) {
  std::vector<Device> devices = load("intel-2x-max1550-ze-tiles.xml");
  std::vector<const Device*> gpus = compute_gpus(devices);
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0]->tiles, 2);
  EXPECT_EQ(gpus[1]->flat_index, 2);          // FLAT: card 1's tiles are root devices 2 and 3
  EXPECT_EQ(gpus[1]->cpus.to_list(), "4-7");  // hwloc-calc os=ze1.1: 4,5,6,7
}

}  // namespace
}  // namespace threadmap
