// The run-time-only GPU libraries through their real dlopen paths, against stand-ins built from
// fake_nvml.c and fake_cuda.c (ctest puts their folder on LD_LIBRARY_PATH): NVML's GPUs, bus ids
// and MIG instances; the CUDA driver's GPUs and copies.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "src/os/cuda_driver.hpp"
#include "src/os/gpu_management.hpp"

namespace threadmap::os {
namespace {

TEST(GpuLibraries, NvmlListsGpusWithBusIdsUuidsAndMigInstances) {
  ManagementReport r = query_nvml();
  ASSERT_TRUE(r.loaded) << r.why_not;
  ASSERT_EQ(r.gpus.size(), 2u);
  EXPECT_EQ(r.gpus[0].bus_id, "0000:34:00.0");  // from NVML's "00000000:34:00.0"
  EXPECT_EQ(r.gpus[1].bus_id, "0000:b7:00.0");
  EXPECT_EQ(r.gpus[0].uuid, "GPU-00000000-0000-4000-8000-000000000000");
  EXPECT_TRUE(r.gpus[0].mig.empty());   // NOT_SUPPORTED: no MIG
  ASSERT_EQ(r.gpus[1].mig.size(), 2u);  // slots past the populated ones are skipped
  EXPECT_EQ(r.gpus[1].mig[1].uuid, "MIG-7c1e0000-0000-4000-8000-000000000001");
  EXPECT_EQ(r.gpus[1].name, "Fake H100");
}

TEST(GpuLibraries, RocmSmiAbsentIsAReasonNotAFailure) {
  ManagementReport r = query_rocm_smi();
  EXPECT_FALSE(r.loaded);
  EXPECT_NE(r.why_not.find("librocm_smi64.so not found"), std::string::npos);
}

TEST(GpuLibraries, CudaDriverCopiesBothWays) {
  auto driver = CudaDriver::open();
  ASSERT_TRUE(driver.ok()) << driver.error().message;
  auto gpus = (*driver)->gpus();
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].bus_id, "0000:9a:00.0");
  auto copier = (*driver)->copier(0, 1 << 20);
  ASSERT_TRUE(copier.ok()) << copier.error().message;
  std::vector<char> host(1 << 20, 'x'), back(1 << 20, 0);
  ASSERT_TRUE((*copier)->register_host(host.data(), host.size()).ok());
  auto up = (*copier)->to_device(host.data(), host.size());
  ASSERT_TRUE(up.ok());
  EXPECT_GE(*up, 0.0);
  ASSERT_TRUE((*copier)->to_host(back.data(), back.size()).ok());
  EXPECT_EQ(std::memcmp(host.data(), back.data(), host.size()), 0);
  EXPECT_FALSE((*copier)->to_device(host.data(), 2 << 20).ok());  // more than the device buffer
  (*copier)->unregister_host(host.data());
}

TEST(GpuLibraries, BusIdsNormalise) {
  EXPECT_EQ(normalized_bus_id("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(normalized_bus_id("0002:01:00.1"), "0002:01:00.1");
  EXPECT_EQ(normalized_bus_id("3B:00.0"), "");
  EXPECT_EQ(normalized_bus_id("0000:3b:00.0x"), "");
}

}  // namespace
}  // namespace threadmap::os
