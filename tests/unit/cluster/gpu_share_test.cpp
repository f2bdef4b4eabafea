// Ranks placed next to their GPUs on recorded GPU servers: exclusive CPU shares inside the GPU's
// local CPUs, memory on its node, the nearest NIC and the variables that name it.
#include "src/cluster/gpu_share.hpp"

#include <gtest/gtest.h>

namespace threadmap::cluster {
namespace {

Topology load(const std::string& name) {
  auto t =
      Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/gpu/" + name + ".xml");
  EXPECT_TRUE(t.ok()) << name;
  if (!t.ok()) std::abort();
  return *t;
}

RankIdentity rank(int k, int n, const char* launcher = "explicit") {
  RankIdentity id;
  id.local_rank = k;
  id.local_size = n;
  id.launcher = launcher;
  return id;
}

std::string env_value(const GpuPlacement& p, const std::string& name) {
  for (const auto& [n, v] : p.set_env)
    if (n == name) return v;
  return "<unset>";
}

TEST(GpuShare, RanksSharingAGpuDomainSplitItsCpusExclusively) {
  // POWER8: GPUs 0,1 local to node 0 (CPUs 0-1,8-9,16-17,24-25), GPUs 2,3 to node 1.
  Topology t = load("ibm-power8-4x-p100");
  std::vector<Device> devices = devices_from_hwloc(t);
  const CpuSet all = t.allowed_cpus();
  std::vector<GpuPlacement> ranks;
  for (int r = 0; r < 4; ++r) {
    auto p = place_with_gpus(t, devices, {}, rank(r, 4), 1, all, all);
    ASSERT_TRUE(p.ok()) << p.error().message;
    ranks.push_back(*p);
  }
  EXPECT_TRUE((ranks[0].share.cpus & ranks[1].share.cpus).empty());
  EXPECT_EQ((ranks[0].share.cpus | ranks[1].share.cpus).to_list(), "0-1,8-9,16-17,24-25");
  EXPECT_EQ((ranks[2].share.cpus | ranks[3].share.cpus).to_list(), "80-81,88-89,96-97,104-105");
  // Each share is whole L3 domains (one core each here): never half a cache.
  for (const GpuPlacement& p : ranks) EXPECT_EQ(p.share.cpus.count(), 4u) << p.share.how;
  EXPECT_EQ(ranks[0].share.memory_nodes, std::vector<int>{0});
  EXPECT_EQ(ranks[3].share.memory_nodes, std::vector<int>{1});
  EXPECT_EQ(ranks[2].gpus[0].bus_id, "000a:01:00.0");
  EXPECT_NE(ranks[1].share.how.find("between 2 ranks"), std::string::npos) << ranks[1].share.how;
  // With the UUIDs hwloc recorded, the visible device is named by UUID.
  EXPECT_EQ(env_value(ranks[2], "CUDA_VISIBLE_DEVICES"), ranks[2].gpus[0].uuid);
}

TEST(GpuShare, AGpuAloneOnItsDomainGetsAllOfIt) {
  Topology t = load("ibm-power8-4x-p100");
  std::vector<Device> devices = devices_from_hwloc(t);
  const CpuSet all = t.allowed_cpus();
  // Two ranks are spread: GPU 0 (node 0) and GPU 2 (node 1), each with its whole node (8 CPUs
  // each, as hwloc-calc -I pu numa:1 gives them), not GPUs 0 and 1 sharing node 0.
  auto p = place_with_gpus(t, devices, {}, rank(1, 2), 1, all, all);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->gpus[0].index, 2);
  EXPECT_EQ(p->share.cpus.to_list(), "80-81,88-89,96-97,104-105");
  // A lone rank given GPU 3 by the launcher: no other rank of the node is taken to sit there
  // (local rank r drives GPU r mod 4), so the whole node is its.
  auto own = place_with_gpus(t, devices, {{"CUDA_VISIBLE_DEVICES", "3"}}, rank(0, 1, "slurm"), 1,
                             all, all);
  ASSERT_TRUE(own.ok()) << own.error().message;
  EXPECT_EQ(own->gpus[0].index, 3);
  EXPECT_EQ(own->share.cpus.count(), 8u);
  EXPECT_TRUE(own->share.cpus.is_subset_of(*CpuSet::parse_list("80-81,88-89,96-97,104-105")));
}

TEST(GpuShare, RanksTheLauncherMadeShareAGpuSplitItsCpus) {
  // Eight ranks, four GPUs, CUDA_VISIBLE_DEVICES = local rank mod 4 (a round-robin launcher):
  // ranks 0 and 4 both drive GPU 0 and must not both take all of its local CPUs (seen on a
  // one-GPU server: two ranks given GPU 0 both pinned their main thread to its first CPU).
  Topology t = load("ibm-power8-4x-p100");
  std::vector<Device> devices = devices_from_hwloc(t);
  const CpuSet all = t.allowed_cpus();
  std::vector<GpuPlacement> ranks;
  for (int r = 0; r < 8; ++r) {
    auto p = place_with_gpus(t, devices, {{"CUDA_VISIBLE_DEVICES", std::to_string(r % 4)}},
                             rank(r, 8, "slurm"), 1, all, all);
    ASSERT_TRUE(p.ok()) << p.error().message;
    ranks.push_back(*p);
  }
  const CpuSet node0 = *CpuSet::parse_list("0-1,8-9,16-17,24-25");
  CpuSet seen;
  for (int r : {0, 1, 4, 5}) {
    EXPECT_TRUE(ranks[r].share.cpus.is_subset_of(node0)) << r << ": " << ranks[r].share.how;
    EXPECT_TRUE((seen & ranks[r].share.cpus).empty()) << r << " overlaps: " << ranks[r].share.how;
    seen |= ranks[r].share.cpus;
  }
  EXPECT_EQ(seen, node0);
  EXPECT_EQ(ranks[0].gpus[0].index, ranks[4].gpus[0].index);
  bool said = false;
  for (const std::string& n : ranks[4].notes)
    said |= n.find("taken to sit on this GPU's CPUs") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(GpuShare, TheLaunchersBindingIsKept) {
  Topology t = load("ibm-power8-4x-p100");
  std::vector<Device> devices = devices_from_hwloc(t);
  CpuSet bound = *CpuSet::parse_list("80-81");
  auto p = place_with_gpus(t, devices, {}, rank(0, 2, "slurm"), 1, bound, t.allowed_cpus());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->share.cpus, bound);
  EXPECT_EQ(p->share.source, ShareSource::launcher);
  // GPU 0 sits on node 0: the binding is far from it, and the note says so.
  ASSERT_FALSE(p->notes.empty());
  EXPECT_NE(p->notes.back().find("none of them local to its GPU"), std::string::npos);
}

TEST(GpuShare, TheNearestNicIsNamedForUcxAndNccl) {
  Topology t = load("intel-2x-xeon-gpu-ib-wholeio");
  std::vector<Device> devices = devices_from_hwloc(t);
  const CpuSet all = t.allowed_cpus();
  // GPU 2 (84:00.0) shares its PCIe bridges with the mlx5_0 HCA.
  auto last = place_with_gpus(t, devices, {}, rank(2, 3), 1, all, all);
  ASSERT_TRUE(last.ok()) << last.error().message;
  ASSERT_TRUE(last->nic.has_value());
  EXPECT_EQ(env_value(*last, "UCX_NET_DEVICES"), "mlx5_0:1");
  EXPECT_EQ(env_value(*last, "NCCL_IB_HCA"), "=mlx5_0");
  EXPECT_EQ(env_value(*last, "NCCL_SOCKET_IFNAME"), "<unset>");
  // GPU 0 on node 0 has no NIC near: none is named (naming a far one would only narrow).
  auto first = place_with_gpus(t, devices, {}, rank(0, 3), 1, all, all);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->nic.has_value());
  EXPECT_EQ(env_value(*first, "UCX_NET_DEVICES"), "<unset>");
  // A variable the environment already sets is the user's choice: kept, and said.
  auto kept =
      place_with_gpus(t, devices, {{"UCX_NET_DEVICES", "mlx5_1:1"}}, rank(2, 3), 1, all, all);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(env_value(*kept, "UCX_NET_DEVICES"), "<unset>");
  bool said = false;
  for (const std::string& n : kept->notes)
    said = said || n.find("UCX_NET_DEVICES=mlx5_1:1 kept") == 0;
  EXPECT_TRUE(said);
}

TEST(GpuShare, EightGpusOnTwoCpusGiveEachRankOne) {
  // The DGX-2 recording cut to CPUs 0-1 (lstopo --restrict): every GPU is local to both CPUs.
  Topology t = load("nvidia-dgx2-cpus0-1");
  std::vector<Device> devices = devices_from_hwloc(t);
  const CpuSet all = t.allowed_cpus();
  auto zero = place_with_gpus(t, devices, {}, rank(0, 2), 1, all, all);
  auto one = place_with_gpus(t, devices, {}, rank(1, 2), 1, all, all);
  ASSERT_TRUE(zero.ok() && one.ok());
  EXPECT_EQ(zero->share.cpus.to_list(), "0");
  EXPECT_EQ(one->share.cpus.to_list(), "1");
  // Two ranks of eight GPUs are spread (GPUs 0 and 4), not crowded on GPUs 0 and 1.
  EXPECT_EQ(zero->gpus[0].index, 0);
  EXPECT_EQ(one->gpus[0].index, 4);
  EXPECT_FALSE(one->nic.has_value());
  EXPECT_NE(one->nic_how.find("no NIC"), std::string::npos);
}

TEST(GpuShare, RunRanksOutnumberingGpusShareThemByLocality) {
  // `run --ranks K/16 --gpus` on POWER8 (4 GPUs, 16 PUs), each rank placed on its own as a
  // launcher starts it: four ranks per GPU, each on its own CPUs of its GPU's node (hwloc-calc
  // -I pu pci=0002:01:00.0 gives 0-1,8-9,16-17,24-25), a note that they share. Refused before.
  Topology t = load("ibm-power8-4x-p100");
  std::vector<Device> devices = devices_from_hwloc(t);
  const CpuSet all = t.allowed_cpus();
  const CpuSet node0 = *CpuSet::parse_list("0-1,8-9,16-17,24-25");
  CpuSet seen;
  for (int r = 0; r < 16; ++r) {
    auto p = place_with_gpus(t, devices, {}, rank(r, 16, "slurm"), 1, all, all);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ(p->gpus[0].index, r / 4);
    EXPECT_EQ(p->share.cpus.count(), 1u) << p->share.how;
    EXPECT_TRUE((seen & p->share.cpus).empty()) << r;
    seen |= p->share.cpus;
    if (r < 8) {
      EXPECT_TRUE(p->share.cpus.is_subset_of(node0)) << r;
    }
    bool said = false;
    for (const std::string& n : p->notes) said |= n.find("ranks share GPUs") != std::string::npos;
    EXPECT_TRUE(said) << r;
  }
  EXPECT_EQ(seen, all);
}

TEST(GpuShare, APerRankVariableSplitsADomainByTheRanksOnIt) {
  // DGX-2: GPUs 0-7 on package 0 (PUs 0-1), 8-15 on package 1 (PUs 24-25, hwloc-calc -I pu
  // pci=0000:b7:00.0). Two ranks, Slurm gives local rank 1 GPU 8: no other rank of the two is
  // taken to sit on package 1, so it gets both PUs, not 1/8 of them (one per GPU there).
  Topology t = load("nvidia-dgx2-16x-v100");
  std::vector<Device> devices = devices_from_hwloc(t);
  const CpuSet all = t.allowed_cpus();
  auto p = place_with_gpus(t, devices, {{"CUDA_VISIBLE_DEVICES", "8"}}, rank(1, 2, "slurm"), 1, all,
                           all);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->gpus[0].index, 8);
  EXPECT_EQ(p->share.cpus.to_list(), "24-25") << p->share.how;
  // Local rank 0 given GPU 0: ranks 0 and 1 are taken to sit on package 0 (GPU r mod 16), so it
  // takes half of it, and says why.
  auto zero = place_with_gpus(t, devices, {{"CUDA_VISIBLE_DEVICES", "0"}}, rank(0, 2, "slurm"), 1,
                              all, all);
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(zero->share.cpus.to_list(), "0");
  bool said = false;
  for (const std::string& n : zero->notes)
    said |= n.find("2 of the node's 2 ranks taken to sit on this GPU's CPUs") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace threadmap::cluster
