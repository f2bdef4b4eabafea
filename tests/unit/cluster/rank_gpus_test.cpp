// Which GPUs a rank drives, under each launcher's spelling, simulated per rank on hwloc's
// recorded DGX-2 (16 V100s, UUIDs recorded) and on hand-made AMD and Intel device lists.
#include "src/cluster/rank_gpus.hpp"

#include <gtest/gtest.h>

namespace threadmap::cluster {
namespace {

std::vector<Device> dgx2() {
  auto t = Topology::load_xml(std::string(THREADMAP_TEST_DATA) +
                              "/topologies/gpu/nvidia-dgx2-16x-v100.xml");
  EXPECT_TRUE(t.ok());
  return devices_from_hwloc(*t);
}

RankIdentity rank(int k, int n, const char* launcher = "openmpi") {
  RankIdentity id;
  id.local_rank = k;
  id.local_size = n;
  id.launcher = launcher;
  return id;
}

std::string bus_of(const GpuAssignment& a) {
  std::string out;
  for (const Device* d : a.mine) out += (out.empty() ? "" : ",") + d->bus_id;
  return out;
}

std::string value_of(const GpuAssignment& a, const std::string& name) {
  for (const auto& [n, v] : a.set_env)
    if (n == name) return v;
  return "<unset>";
}

TEST(RankGpus, NoVariableTakesTheIthGpuInBusOrderAndSetsIt) {
  std::vector<Device> devices = dgx2();
  Environment env{{"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}};
  auto id = rank_from_environment(env);
  ASSERT_TRUE(id.ok());
  auto a = assign_gpus(devices, env, *id, 1);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(bus_of(*a), "0000:36:00.0");
  // The file records each GPU's UUID: the variable names it (immune to CUDA's order).
  EXPECT_EQ(value_of(*a, "CUDA_VISIBLE_DEVICES"), a->mine[0]->uuid);
  EXPECT_EQ(a->node_gpus.size(), 4u);
  EXPECT_NE(a->how.find("PCI bus order"), std::string::npos);
  auto two = assign_gpus(devices, env, *id, 2);  // rank 1 of 4 with 2 each: GPUs 2 and 3
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(bus_of(*two), "0000:39:00.0,0000:3b:00.0");
}

TEST(RankGpus, TorchrunKeepsItsListAndTheRankIndexesIt) {
  // torchrun sets LOCAL_RANK; CUDA_VISIBLE_DEVICES=3,1 makes the program's cuda:1 physical GPU 1.
  std::vector<Device> devices = dgx2();
  Environment env{{"LOCAL_RANK", "1"},
                  {"LOCAL_WORLD_SIZE", "2"},
                  {"CUDA_VISIBLE_DEVICES", "3,1"},
                  {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}};
  auto id = rank_from_environment(env);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->launcher, "torchrun");
  auto a = assign_gpus(devices, env, *id, 1);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(bus_of(*a), "0000:36:00.0");  // bus order index 1
  EXPECT_TRUE(a->set_env.empty());        // the launcher's list is kept
  ASSERT_EQ(a->node_gpus.size(), 2u);
  EXPECT_EQ(a->node_gpus[0]->index, 3);
  auto zero = assign_gpus(devices, env, rank(0, 2, "torchrun"), 1);
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(zero->mine[0]->index, 3);
}

TEST(RankGpus, TorchrunWithoutAListIsNotNarrowed) {
  std::vector<Device> devices = dgx2();
  auto a = assign_gpus(devices, {}, rank(1, 2, "torchrun"), 1);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->mine[0]->index, 1);
  EXPECT_EQ(value_of(*a, "CUDA_VISIBLE_DEVICES"), "<unset>");
  EXPECT_EQ(value_of(*a, "CUDA_DEVICE_ORDER"), "PCI_BUS_ID");
}

TEST(RankGpus, SlurmStepGpusAreBusOrderIndexes) {
  std::vector<Device> devices = dgx2();
  Environment env{
      {"SLURM_LOCALID", "1"}, {"SLURM_STEP_TASKS_PER_NODE", "2"}, {"SLURM_STEP_GPUS", "10,12"}};
  auto id = rank_from_environment(env);
  ASSERT_TRUE(id.ok());
  auto a = assign_gpus(devices, env, *id, 1);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->mine[0]->index, 12);
  EXPECT_EQ(a->mine[0]->bus_id, "0000:e0:00.0");
  EXPECT_TRUE(a->set_env.empty());
}

TEST(RankGpus, UnderSlurmAConstrainedCudaListIsRelative) {
  // ConstrainDevices: Slurm gives the task CUDA_VISIBLE_DEVICES=1 meaning the 2nd of its GPUs.
  std::vector<Device> devices = dgx2();
  Environment env{{"SLURM_STEP_GPUS", "10,12"}, {"CUDA_VISIBLE_DEVICES", "1"}};
  auto a = assign_gpus(devices, env, rank(1, 2, "slurm"), 1);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->mine[0]->index, 12);
  bool said = false;
  for (const std::string& n : a->notes)
    said = said || n.find("relative to SLURM_STEP_GPUS") != std::string::npos;
  EXPECT_TRUE(said) << ::testing::PrintToString(a->notes);
  // Not constrained: the same list as Slurm's is global.
  Environment same{{"SLURM_STEP_GPUS", "10,12"}, {"CUDA_VISIBLE_DEVICES", "10,12"}};
  auto b = assign_gpus(devices, same, rank(0, 2, "slurm"), 1);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->mine[0]->index, 10);
}

TEST(RankGpus, UuidAndMigForms) {
  std::vector<Device> devices = dgx2();
  const std::string uuid9 = devices[9].uuid;
  ASSERT_FALSE(uuid9.empty());
  auto a = assign_gpus(devices, {{"CUDA_VISIBLE_DEVICES", uuid9}}, rank(0, 1), 1);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->mine[0]->index, 9);
  // A MIG instance (as NVML lists it at run time) stands for its GPU.
  devices[5].mig = {{0, "MIG-4f3c7b1e-0000-5a5a-9e1d-1234567890ab"}};
  auto m =
      assign_gpus(devices, {{"CUDA_VISIBLE_DEVICES", "MIG-4f3c7b1e-0000-5a5a-9e1d-1234567890ab"}},
                  rank(0, 1), 1);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->mine[0]->index, 5);
  auto legacy =
      assign_gpus(devices, {{"CUDA_VISIBLE_DEVICES", "MIG-" + uuid9 + "/1/0"}}, rank(0, 1), 1);
  ASSERT_TRUE(legacy.ok()) << legacy.error().message;
  EXPECT_EQ(legacy->mine[0]->index, 9);
}

TEST(RankGpus, RefusalsStateTheRule) {
  std::vector<Device> devices = dgx2();
  auto missing = assign_gpus(devices, {{"CUDA_VISIBLE_DEVICES", "16"}}, rank(0, 1), 1);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("entry '16' is past the end: there are 16"),
            std::string::npos)
      << missing.error().message;
  auto empty = assign_gpus(devices, {{"CUDA_VISIBLE_DEVICES", ""}}, rank(0, 1), 1);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("would see no GPU"), std::string::npos);
  auto unknown =
      assign_gpus(devices, {{"CUDA_VISIBLE_DEVICES", "GPU-ffffffff-dead"}}, rank(0, 1), 1);
  EXPECT_FALSE(unknown.ok());
  auto too_many = assign_gpus(devices, {}, rank(0, 9), 2);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.error().message.find("need 18 GPUs; this node has 16"), std::string::npos)
      << too_many.error().message;
  auto between = assign_gpus(devices, {{"CUDA_VISIBLE_DEVICES", "0,1,2"}}, rank(0, 4), 1);
  ASSERT_FALSE(between.ok());
  EXPECT_NE(between.error().message.find("either each rank's own 1 or every rank's 4"),
            std::string::npos)
      << between.error().message;
  auto cpu_only =
      Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/amd-2x-epyc7763-zen3.xml");
  ASSERT_TRUE(cpu_only.ok());
  auto none = assign_gpus(devices_from_hwloc(*cpu_only), {}, rank(0, 1), 1);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message.rfind("no GPU found", 0), 0u) << none.error().message;
}

TEST(RankGpus, CudasFastestFirstOrderIsOnlyAssumedForOneModel) {
  // Same model everywhere (DGX-2): indexes without CUDA_DEVICE_ORDER are read in bus order.
  std::vector<Device> devices = dgx2();
  auto same = assign_gpus(devices, {{"CUDA_VISIBLE_DEVICES", "2"}}, rank(0, 1), 1);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->mine[0]->index, 2);
  ASSERT_FALSE(same->notes.empty());
  EXPECT_NE(same->notes[0].find("same model"), std::string::npos);
  // Two models: only CUDA knows its order.
  devices[3].device_id = 0x2330;
  auto mixed = assign_gpus(devices, {{"CUDA_VISIBLE_DEVICES", "2"}}, rank(0, 1), 1);
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.error().message.find("CUDA_DEVICE_ORDER=PCI_BUS_ID"), std::string::npos);
  auto ordered = assign_gpus(
      devices, {{"CUDA_VISIBLE_DEVICES", "2"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}}, rank(0, 1), 1);
  EXPECT_TRUE(ordered.ok());
}

Device made(unsigned vendor, const std::string& bus, int index, const std::string& uuid = "") {
  Device d;
  d.kind = DeviceKind::gpu;
  d.vendor_id = vendor;
  d.class_id = 0x0380;
  d.bus_id = bus;
  d.index = index;
  d.uuid = uuid;
  d.cpus = *CpuSet::parse_list("0-3");
  return d;
}

TEST(RankGpus, AmdRocrAndHipVariables) {
  std::vector<Device> amd = {made(0x1002, "0000:c1:00.0", 0, "GPU-4a1b2c3d4e5f6071"),
                             made(0x1002, "0000:c5:00.0", 1, "GPU-8a1b2c3d4e5f6072"),
                             made(0x1002, "0000:d1:00.0", 2)};
  auto by_uuid =
      assign_gpus(amd, {{"ROCR_VISIBLE_DEVICES", "GPU-8a1b2c3d4e5f6072"}}, rank(0, 1), 1);
  ASSERT_TRUE(by_uuid.ok()) << by_uuid.error().message;
  EXPECT_EQ(by_uuid->mine[0]->index, 1);
  // HIP_VISIBLE_DEVICES selects inside ROCR_VISIBLE_DEVICES's list.
  auto inside = assign_gpus(amd, {{"ROCR_VISIBLE_DEVICES", "2,0"}, {"HIP_VISIBLE_DEVICES", "1"}},
                            rank(0, 1), 1);
  ASSERT_TRUE(inside.ok()) << inside.error().message;
  EXPECT_EQ(inside->mine[0]->index, 0);
  auto set = assign_gpus(amd, {}, rank(2, 3), 1);
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(value_of(*set, "ROCR_VISIBLE_DEVICES"), "2");  // no UUID known for it: the index
}

TEST(RankGpus, IntelAffinityMaskNamesDevicesAndSubDevices) {
  std::vector<Device> intel = {made(0x8086, "0000:3a:00.0", 0), made(0x8086, "0000:9a:00.0", 1)};
  number_gpus(intel);
  // N.M is sub-device M of card N under COMPOSITE; under FLAT (the default) cards have none.
  auto a =
      assign_gpus(intel, {{"ZE_AFFINITY_MASK", "1.0"}, {"ZE_FLAT_DEVICE_HIERARCHY", "COMPOSITE"}},
                  rank(0, 1), 1);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->mine[0]->bus_id, "0000:9a:00.0");
  EXPECT_FALSE(assign_gpus(intel, {{"ZE_AFFINITY_MASK", "1.0"}}, rank(0, 1), 1).ok());
  auto set = assign_gpus(intel, {}, rank(1, 2), 1);
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(value_of(*set, "ZE_AFFINITY_MASK"), "1");
  EXPECT_EQ(value_of(*set, "ZE_ENABLE_PCI_ID_DEVICE_ORDER"), "1");
}

}  // namespace
}  // namespace threadmap::cluster
