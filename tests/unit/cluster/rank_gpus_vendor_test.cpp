// The visible-devices variables as each vendor documents its runtime reading them, on hwloc's
// recorded DGX-2 and on the authored AMD and Intel topologies (tests/data/topologies/gpu/
// authored): CUDA's list up to an invalid index, a repeated GPU, the empty list, the NVIDIA
// container runtime's NVIDIA_VISIBLE_DEVICES; ROCm's ROCR_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL,
// HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES each inside the one before (ROCm's "GPU isolation
// techniques"); Level Zero's ZE_AFFINITY_MASK under each ZE_FLAT_DEVICE_HIERARCHY; Slurm's
// relative or absolute lists as the node's device files say; torchrun; the visibility choice.
#include <gtest/gtest.h>

#include "src/cluster/rank_gpus.hpp"

namespace threadmap::cluster {
namespace {

std::vector<Device> load(const std::string& path) {
  auto t = Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/gpu/" + path);
  EXPECT_TRUE(t.ok()) << path;
  return t.ok() ? devices_from_hwloc(*t) : std::vector<Device>{};
}

RankIdentity rank(int k, int n, const char* launcher = "openmpi") {
  RankIdentity id;
  id.local_rank = k;
  id.local_size = n;
  id.launcher = launcher;
  return id;
}

std::string value_of(const GpuAssignment& a, const std::string& name) {
  for (const auto& [n, v] : a.set_env)
    if (n == name) return v;
  return "<unset>";
}

std::string refusal(const Result<GpuAssignment>& a) {
  return a.ok() ? std::string("<accepted>") : a.error().message;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CudaList, AnInvalidIndexHidesItselfAndEveryLaterEntry) {
  std::vector<Device> dgx = load("nvidia-dgx2-16x-v100.xml");
  // CUDA's documented example: 0,2,-1,1 shows devices 0 and 2.
  auto a = assign_gpus(dgx, {{"CUDA_VISIBLE_DEVICES", "0,2,-1,1"}}, rank(0, 1), 2);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->mine[0]->index, 0);
  EXPECT_EQ(a->mine[1]->index, 2);
  auto none = assign_gpus(dgx, {{"CUDA_VISIBLE_DEVICES", "-1"}}, rank(0, 1), 1);
  EXPECT_TRUE(has(refusal(none), "CUDA_VISIBLE_DEVICES='-1': the program would see no GPU"))
      << refusal(none);
  auto empty = assign_gpus(dgx, {{"CUDA_VISIBLE_DEVICES", ""}}, rank(0, 1), 1);
  EXPECT_TRUE(has(refusal(empty), "would see no GPU")) << refusal(empty);
}

TEST(CudaList, ARepeatedGpuIsRefusedAsCudaShowsNone) {
  std::vector<Device> dgx = load("nvidia-dgx2-16x-v100.xml");
  auto twice = assign_gpus(dgx, {{"CUDA_VISIBLE_DEVICES", "2,2"}}, rank(0, 1), 2);
  EXPECT_TRUE(has(refusal(twice), "entry '2' names GPU 2 again: CUDA then shows no GPU at all"))
      << refusal(twice);
  auto amd_form =
      assign_gpus(dgx, {{"CUDA_VISIBLE_DEVICES", "GPU-04c04714172e6268"}}, rank(0, 1), 1);
  EXPECT_TRUE(has(refusal(amd_form), "a ROCm UUID")) << refusal(amd_form);
}

TEST(CudaList, NvidiaVisibleDevicesChoosesTheContainersGpus) {
  std::vector<Device> dgx = load("nvidia-dgx2-16x-v100.xml");
  // The container has host GPUs 3 and 5; its CUDA index 1 is host GPU 5.
  auto a = assign_gpus(dgx, {{"NVIDIA_VISIBLE_DEVICES", "5,3"}, {"CUDA_VISIBLE_DEVICES", "1"}},
                       rank(0, 1), 1);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->mine[0]->index, 5);
  auto only = assign_gpus(dgx, {{"NVIDIA_VISIBLE_DEVICES", "5,3"}}, rank(1, 2), 1);
  ASSERT_TRUE(only.ok()) << only.error().message;
  EXPECT_EQ(only->mine[0]->index, 5);
  for (const char* v : {"none", "void", ""})
    EXPECT_TRUE(has(refusal(assign_gpus(dgx, {{"NVIDIA_VISIBLE_DEVICES", v}}, rank(0, 1), 1)),
                    "gives this container no GPU"))
        << v;
  EXPECT_TRUE(assign_gpus(dgx, {{"NVIDIA_VISIBLE_DEVICES", "all"}}, rank(0, 1), 1).ok());
  auto past = assign_gpus(dgx, {{"NVIDIA_VISIBLE_DEVICES", "16"}}, rank(0, 1), 1);
  EXPECT_TRUE(has(refusal(past), "entry '16' is past the end")) << refusal(past);
}

TEST(RocmList, RocrTakesRocmsIndexesAndItsUuidForm) {
  std::vector<Device> amd = load("authored/amd-4x-mi100-rsmi-nonbus.xml");
  auto one = assign_gpus(amd, {{"ROCR_VISIBLE_DEVICES", "1"}}, rank(0, 1), 1);
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(one->mine[0]->bus_id, "0000:a3:00.0");  // rsmi1
  auto uuid = assign_gpus(amd, {{"ROCR_VISIBLE_DEVICES", "GPU-04c04714172e6268"}}, rank(0, 1), 1);
  ASSERT_TRUE(uuid.ok()) << uuid.error().message;
  EXPECT_EQ(uuid->mine[0]->bus_id, "0000:03:00.0");
  auto bare = assign_gpus(amd, {{"ROCR_VISIBLE_DEVICES", "4c04714172e6268"}}, rank(0, 1), 1);
  EXPECT_TRUE(has(refusal(bare),
                  "hwloc's bare hex text of a ROCm UUID, which ROCr does not "
                  "take: write GPU-04c04714172e6268"))
      << refusal(bare);
  auto nvidia = assign_gpus(
      amd, {{"ROCR_VISIBLE_DEVICES", "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6"}}, rank(0, 1), 1);
  EXPECT_FALSE(nvidia.ok());
  // Threadmap writes ROCm's form.
  auto set = assign_gpus(amd, {}, rank(0, 1), 1);
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->mine[0]->bus_id, "0000:83:00.0");
  EXPECT_EQ(value_of(*set, "ROCR_VISIBLE_DEVICES"), "GPU-a1b2c3d4e5f60718");
}

TEST(RocmList, HipNumbersWhatRocrLeftAndHonoursCudaVisibleDevices) {
  std::vector<Device> amd = load("authored/amd-4x-mi100-rsmi-nonbus.xml");
  // ROCR leaves ROCm's 2 and 0 (buses 03 and 83); HIP's 1 is then ROCm's 0.
  for (const char* hip : {"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"}) {
    auto a = assign_gpus(amd, {{"ROCR_VISIBLE_DEVICES", "2,0"}, {hip, "1"}}, rank(0, 1), 1);
    ASSERT_TRUE(a.ok()) << a.error().message;
    EXPECT_EQ(a->mine[0]->bus_id, "0000:83:00.0") << hip;
  }
  // HIP_VISIBLE_DEVICES wins over CUDA_VISIBLE_DEVICES.
  auto both = assign_gpus(amd, {{"HIP_VISIBLE_DEVICES", "3"}, {"CUDA_VISIBLE_DEVICES", "0"}},
                          rank(0, 1), 1);
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both->mine[0]->bus_id, "0000:23:00.0");
  // GPU_DEVICE_ORDINAL sits between them, indexes only.
  auto ordinal = assign_gpus(amd,
                             {{"ROCR_VISIBLE_DEVICES", "3,2,1"},
                              {"GPU_DEVICE_ORDINAL", "2,0"},
                              {"HIP_VISIBLE_DEVICES", "0"}},
                             rank(0, 1), 1);
  ASSERT_TRUE(ordinal.ok()) << ordinal.error().message;
  EXPECT_EQ(ordinal->mine[0]->bus_id, "0000:a3:00.0");  // ROCR's 2nd entry: ROCm's 1
  auto past = assign_gpus(amd, {{"ROCR_VISIBLE_DEVICES", "2,0"}, {"HIP_VISIBLE_DEVICES", "2"}},
                          rank(0, 1), 1);
  EXPECT_TRUE(has(refusal(past), "HIP_VISIBLE_DEVICES='2': entry '2' is past the end: there are 2"))
      << refusal(past);
}

TEST(LevelZeroMask, TheHierarchyDecidesWhatAnIndexNames) {
  std::vector<Device> intel = load("authored/intel-2x-max1550-ze-tiles.xml");
  // FLAT (the default): 4 root devices, one per tile; 2 and 3 are card 1's tiles.
  auto flat = assign_gpus(intel, {{"ZE_AFFINITY_MASK", "3"}}, rank(0, 1), 1);
  ASSERT_TRUE(flat.ok()) << flat.error().message;
  EXPECT_EQ(flat->mine[0]->bus_id, "0000:9a:00.0");
  auto past = assign_gpus(intel, {{"ZE_AFFINITY_MASK", "4"}}, rank(0, 1), 1);
  EXPECT_TRUE(has(refusal(past), "under FLAT there are 4 root devices")) << refusal(past);
  auto sub = assign_gpus(intel, {{"ZE_AFFINITY_MASK", "1.1"}}, rank(0, 1), 1);
  EXPECT_TRUE(has(refusal(sub), "each tile is a root device already")) << refusal(sub);
  const Environment composite{{"ZE_FLAT_DEVICE_HIERARCHY", "COMPOSITE"}};
  Environment env = composite;
  env["ZE_AFFINITY_MASK"] = "1.1";
  auto tile = assign_gpus(intel, env, rank(0, 1), 1);
  ASSERT_TRUE(tile.ok()) << tile.error().message;
  EXPECT_EQ(tile->mine[0]->bus_id, "0000:9a:00.0");
  env["ZE_AFFINITY_MASK"] = "1.2";
  EXPECT_TRUE(has(refusal(assign_gpus(intel, env, rank(0, 1), 1)),
                  "names a tile card 1 does not have (it has 2)"));
  auto bad = assign_gpus(intel, {{"ZE_FLAT_DEVICE_HIERARCHY", "TREE"}, {"ZE_AFFINITY_MASK", "0"}},
                         rank(0, 1), 1);
  EXPECT_TRUE(has(refusal(bad), "ZE_FLAT_DEVICE_HIERARCHY='TREE'")) << refusal(bad);
  // Written: card 1's tiles under FLAT, the card under COMPOSITE.
  auto set = assign_gpus(intel, {}, rank(1, 2), 1);
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(value_of(*set, "ZE_AFFINITY_MASK"), "2,3");
  auto set_c = assign_gpus(intel, composite, rank(1, 2), 1);
  ASSERT_TRUE(set_c.ok());
  EXPECT_EQ(value_of(*set_c, "ZE_AFFINITY_MASK"), "1");
}

TEST(SlurmList, TheNodesDeviceFilesDecideRelativeOrAbsolute) {
  std::vector<Device> dgx = load("nvidia-dgx2-16x-v100.xml");
  const Environment env{{"SLURM_STEP_GPUS", "10,12"}, {"CUDA_VISIBLE_DEVICES", "1"}};
  GpuChoice constrained;
  constrained.files = {16, 2};  // 2 of 16 /dev/nvidiaN open: a cgroup device rule
  auto rel = assign_gpus(dgx, env, rank(0, 1, "slurm"), 1, constrained);
  ASSERT_TRUE(rel.ok()) << rel.error().message;
  EXPECT_EQ(rel->mine[0]->index, 12);
  GpuChoice open;
  open.files = {16, 16};
  auto abs = assign_gpus(dgx, env, rank(0, 1, "slurm"), 1, open);
  ASSERT_TRUE(abs.ok()) << abs.error().message;
  EXPECT_EQ(abs->mine[0]->index, 1);
  EXPECT_TRUE(has(abs->notes.front(), "can open all 16 /dev/nvidiaN files"));
  auto assumed = assign_gpus(dgx, env, rank(0, 1, "slurm"), 1);
  ASSERT_TRUE(assumed.ok());
  EXPECT_EQ(assumed->mine[0]->index, 12);
  EXPECT_TRUE(has(assumed->notes.front(), "assumed")) << assumed->notes.front();
}

TEST(Torchrun, SeveralGpusPerRankWithoutItsOwnListIsRefused) {
  std::vector<Device> dgx = load("nvidia-dgx2-16x-v100.xml");
  auto a = assign_gpus(dgx, {}, rank(1, 2, "torchrun"), 4);
  EXPECT_TRUE(has(refusal(a), "--gpus 4 under torchrun: its program addresses cuda:LOCAL_RANK"))
      << refusal(a);
  auto own = assign_gpus(dgx, {{"CUDA_VISIBLE_DEVICES", "4,5,6,7"}}, rank(1, 2, "torchrun"), 4);
  ASSERT_TRUE(own.ok()) << own.error().message;
  EXPECT_EQ(own->mine[0]->index, 4);
}

TEST(Visibility, AllOwnFirstKeepsEveryGpuWithTheRanksFirst) {
  std::vector<Device> dgx = load("nvidia-dgx2-16x-v100.xml");
  GpuChoice all;
  all.visibility = GpuVisibility::all_own_first;
  auto a = assign_gpus(dgx, {}, rank(1, 4), 1, all);
  ASSERT_TRUE(a.ok());
  const std::string list = value_of(*a, "CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(list.rfind(a->mine[0]->uuid + "," + compute_gpus(dgx)[0]->uuid, 0), 0u) << list;
  EXPECT_EQ(std::count(list.begin(), list.end(), ','), 15);
  auto narrow = assign_gpus(dgx, {}, rank(1, 4), 1);
  ASSERT_TRUE(narrow.ok());
  EXPECT_EQ(value_of(*narrow, "CUDA_VISIBLE_DEVICES"), narrow->mine[0]->uuid);
  EXPECT_TRUE(parse_gpu_visibility("all-own-first").ok());
  EXPECT_FALSE(parse_gpu_visibility("all").ok());
}

}  // namespace
}  // namespace threadmap::cluster
