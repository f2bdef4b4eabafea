// The KFD topology parser on authored node properties (the keys and encodings of the amdgpu
// driver's kfd_topology.c: location_id = bus << 8 | devfn, a CPU node has no SIMDs), the reader
// on an authored sysfs tree, and the NVIDIA device-file probe on an authored /dev.
#include "src/os/gpu_device_files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

namespace threadmap::os {
namespace {

// A fresh directory under /tmp; "" when none could be made.
std::string temp_dir(const char* prefix) {
  std::string path = std::string("/tmp/") + prefix + ".XXXXXX";
  return mkdtemp(path.data()) ? path : std::string();
}

TEST(KfdTopology, AGpuNodeGivesItsBusIdAndUniqueId) {
  KfdGpu gpu;
  // Bus 0xc1, device 0, function 0 -> location_id 0xc100 = 49408.
  ASSERT_TRUE(parse_kfd_properties(
      "cpu_cores_count 0\nsimd_count 440\nlocation_id 49408\ndomain 0\nunique_id "
      "5367468130419600012\n",
      gpu));
  EXPECT_EQ(gpu.bus_id, "0000:c1:00.0");
  EXPECT_EQ(gpu.unique_id, 5367468130419600012ull);
  KfdGpu cpu;
  EXPECT_FALSE(parse_kfd_properties("cpu_cores_count 64\nsimd_count 0\nlocation_id 0\n", cpu));
}

TEST(KfdTopology, NodesAreReadInNodeOrderSkippingCpus) {
  auto dir = std::make_optional(temp_dir("tm-kfd"));
  ASSERT_FALSE(dir->empty());
  const std::string base = *dir + "/sys/class/kfd/kfd/topology/nodes";
  auto node = [&](int n, const std::string& text) {
    const std::string d = base + "/" + std::to_string(n);
    ASSERT_EQ(std::system(("mkdir -p " + d).c_str()), 0);
    std::ofstream(d + "/properties") << text;
  };
  node(0, "simd_count 0\nlocation_id 0\n");
  node(1, "simd_count 440\nlocation_id 33536\ndomain 0\n");   // 0x8300: bus 83
  node(2, "simd_count 440\nlocation_id 768\ndomain 0\n");     // 0x0300: bus 03
  node(10, "simd_count 440\nlocation_id 41728\ndomain 0\n");  // 0xa300: bus a3, after node 2
  auto gpus = read_kfd_gpus(*dir);
  ASSERT_TRUE(gpus.ok()) << gpus.error().message;
  ASSERT_EQ(gpus->size(), 3u);
  EXPECT_EQ((*gpus)[0].bus_id, "0000:83:00.0");
  EXPECT_EQ((*gpus)[1].bus_id, "0000:03:00.0");
  EXPECT_EQ((*gpus)[2].bus_id, "0000:a3:00.0");
  EXPECT_EQ((*gpus)[2].node, 10);
  EXPECT_FALSE(read_kfd_gpus(*dir + "/none").ok());
  EXPECT_EQ(std::system(("rm -rf " + *dir).c_str()), 0);
}

TEST(NvidiaDeviceFiles, CountsTheGpuFilesAndTheOnesThatOpen) {
  auto dir = std::make_optional(temp_dir("tm-dev"));
  ASSERT_FALSE(dir->empty());
  ASSERT_EQ(::mkdir((*dir + "/dev").c_str(), 0755), 0);
  for (const char* name : {"nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm"})
    std::ofstream(*dir + "/dev/" + name) << "";
  EXPECT_EQ(probe_nvidia_device_files(*dir).present, 2);
  EXPECT_EQ(probe_nvidia_device_files(*dir).openable, 2);
  EXPECT_EQ(probe_nvidia_device_files(*dir + "/none").present, 0);
  EXPECT_EQ(std::system(("rm -rf " + *dir).c_str()), 0);
}

}  // namespace
}  // namespace threadmap::os
