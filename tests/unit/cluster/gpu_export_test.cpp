// `plan --ranks N --gpus` as one library call on recorded GPU servers, and its exports: Slurm's
// --gpu-bind beside --cpu-bind, a rankfile's GPU comments, the shell wrapper.
#include <gtest/gtest.h>

#include "src/cluster/rank_plan.hpp"

namespace threadmap::cluster {
namespace {

RankPlanRequest on(const std::string& name, int ranks, std::optional<RankExport> format = {}) {
  RankPlanRequest request;
  request.ranks = ranks;
  request.gpus = 1;
  request.topology_file = std::string(THREADMAP_TEST_DATA) + "/topologies/gpu/" + name + ".xml";
  request.format = format;
  request.host = "gpu7";
  return request;
}

TEST(GpuPlan, EveryRankNextToItsGpu) {
  auto plan = plan_ranks(on("ibm-power8-4x-p100", 4));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->gpu_ranks.size(), 4u);
  ASSERT_EQ(plan->shares.size(), 4u);
  for (size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(plan->gpu_ranks[r].gpus.at(0).index, static_cast<int>(r));
    EXPECT_TRUE(plan->shares[r].cpus.is_subset_of(plan->gpu_ranks[r].gpus[0].cpus));
  }
}

TEST(GpuPlan, MoreRanksThanGpusShareThemWithANote) {
  auto plan = plan_ranks(on("ibm-power8-4x-p100", 5));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->gpu_ranks.size(), 5u);
  EXPECT_NE(plan->gpu_ranks[0].notes.front().find("ranks share GPUs"), std::string::npos);
  for (size_t a = 0; a < 5; ++a)
    for (size_t b = a + 1; b < 5; ++b)
      EXPECT_TRUE((plan->shares[a].cpus & plan->shares[b].cpus).empty()) << a << " " << b;
}

TEST(GpuPlan, MoreGpusPerRankThanTheNodeHasIsRefused) {
  RankPlanRequest request = on("ibm-power8-4x-p100", 1);
  request.gpus = 5;
  auto plan = plan_ranks(request);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().input, "gpus");
  EXPECT_EQ(plan.error().fault, Fault::input);
  EXPECT_NE(plan.error().message.find("bad GPU count 5 per rank: this node has 4"),
            std::string::npos)
      << plan.error().message;
}

TEST(GpuPlan, SlurmBindsGpusCpusAndMemory) {
  auto plan = plan_ranks(on("ibm-power8-4x-p100", 4, RankExport::slurm));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const std::string& s = plan->exported;
  EXPECT_NE(s.find("--gres=gpu:4 --gpu-bind=map_gpu:0,1,2,3 --cpu-bind=mask_cpu:0x"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("--mem-bind=map_mem:0,0,1,1"), std::string::npos) << s;
  EXPECT_NE(s.find("# rank 0: no NIC named"), std::string::npos) << s;
}

TEST(GpuPlan, RankfileNamesEachRanksGpu) {
  auto plan = plan_ranks(on("ibm-power8-4x-p100", 2, RankExport::rankfile));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_NE(plan->exported.find("rank 1=gpu7 slot="), std::string::npos) << plan->exported;
  // Two ranks are spread over the node: GPU 0 (node 0) and GPU 2 (node 1).
  EXPECT_NE(plan->exported.find("#   rank 1: GPU 2 (000a:01:00.0)"), std::string::npos)
      << plan->exported;
}

TEST(GpuPlan, TheWrapperSetsOneRanksPlaceByItsLocalRank) {
  auto plan = plan_ranks(on("intel-2x-xeon-gpu-ib-wholeio", 3, RankExport::wrapper));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const std::string& w = plan->exported;
  EXPECT_EQ(w.rfind("#!/bin/sh\n", 0), 0u);
  EXPECT_NE(w.find("r=${LOCAL_RANK:-${OMPI_COMM_WORLD_LOCAL_RANK:-${SLURM_LOCALID:-"),
            std::string::npos);
  EXPECT_NE(w.find("  2) cpus="), std::string::npos) << w;
  // The HCA next to GPU 2, exactly (NCCL's '=' prefix), quoted for the shell.
  EXPECT_NE(w.find("UCX_NET_DEVICES='mlx5_0:1' NCCL_IB_HCA='=mlx5_0'"), std::string::npos) << w;
  // Under torchrun (LOCAL_RANK set) the visible devices are left alone.
  EXPECT_NE(w.find("[ -n \"${LOCAL_RANK:-}\" ] || export CUDA_VISIBLE_DEVICES="), std::string::npos)
      << w;
  EXPECT_NE(w.find("numactl --physcpubind=\"$cpus\" --membind=\"$mem\""), std::string::npos);
}

TEST(GpuPlan, TheWrapperWorksWithoutGpusToo) {
  RankPlanRequest request = on("ibm-power8-4x-p100", 2, RankExport::wrapper);
  request.gpus = 0;
  auto plan = plan_ranks(request);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_NE(plan->exported.find("  1) cpus="), std::string::npos);
  EXPECT_EQ(plan->exported.find("CUDA_VISIBLE_DEVICES"), std::string::npos);
}

}  // namespace
}  // namespace threadmap::cluster
