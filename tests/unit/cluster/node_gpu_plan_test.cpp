// A node with GPUs shared out among its ranks, on the recorded GPU servers of tests/data and a
// small topology authored for the case they lack (a GPU with no NUMA node of its own). Every
// expected CPU set is hwloc-calc's, run on the same file while the test runs (`hwloc-calc -i
// FILE --po -I pu ...`), never threadmap's own output.
#include "src/cluster/node_gpu_plan.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "src/cluster/gpu_share.hpp"

namespace threadmap::cluster {
namespace {

std::string data(const std::string& rel) { return std::string(THREADMAP_TEST_DATA) + rel; }

// hwloc-calc's answer on FILE as a CPU set ("" when it fails).
std::string hwloc_calc(const std::string& file, const std::string& args) {
  std::string cmd = "hwloc-calc --if xml -i '" + file + "' --po " + args + " 2>/dev/null";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

CpuSet pus(const std::string& file, const std::string& location) {
  auto set = CpuSet::parse_list(hwloc_calc(file, "-I pu " + location));
  EXPECT_TRUE(set.ok()) << location;
  return set.ok() ? *set : CpuSet();
}

struct Machine {
  std::string file;
  Topology topo;
  std::vector<Device> devices;
};

Machine load(const std::string& rel) {
  auto t = Topology::load_xml(data(rel));
  EXPECT_TRUE(t.ok()) << rel;
  if (!t.ok()) std::abort();
  Machine m{data(rel), *t, {}};
  m.devices = devices_from_hwloc(m.topo);
  return m;
}

// The properties every plan must have, checked against hwloc-calc.
void check_plan(const Machine& m, int ranks, int per_rank) {
  SCOPED_TRACE(m.file + ", " + std::to_string(ranks) + " ranks x " + std::to_string(per_rank));
  auto plan = plan_node_gpus(m.topo, m.devices, m.topo.allowed_cpus(), ranks, per_rank);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->ranks.size(), static_cast<size_t>(ranks));
  const CpuSet all = pus(m.file, "all");
  CpuSet seen;
  bool overlap = false;
  const bool not_local = std::any_of(plan->notes.begin(), plan->notes.end(), [](const auto& n) {
    return n.find("not local to their GPU") != std::string::npos;
  });
  for (const NodeRank& r : plan->ranks) {
    ASSERT_EQ(r.gpus.size(), static_cast<size_t>(per_rank));
    overlap = overlap || !(seen & r.share.cpus).empty();
    seen |= r.share.cpus;
    // Local to its GPU: the share meets the PUs hwloc-calc gives the GPU's PCI device (unless a
    // note says the GPU's node has fewer CPUs than ranks).
    const CpuSet near = pus(m.file, "pci=" + r.gpus.front()->bus_id);
    if (!not_local) {
      EXPECT_FALSE((r.share.cpus & near).empty())
          << r.share.cpus.to_list() << " vs " << near.to_list();
    }
  }
  EXPECT_EQ(seen, all) << "every CPU of the node in some share";
  const bool said = std::any_of(plan->notes.begin(), plan->notes.end(), [](const std::string& n) {
    return n.find("cannot give each its own") != std::string::npos;
  });
  EXPECT_EQ(overlap, said) << "shares overlap only where a note says so";
  if (static_cast<size_t>(ranks) <= all.count()) {
    EXPECT_FALSE(overlap);
  }
  // Memory on the GPU's NUMA node, as hwloc-calc names it, where it names one.
  auto placed = place_node_with_gpus(m.topo, m.devices, m.topo.allowed_cpus(), ranks, per_rank);
  ASSERT_TRUE(placed.ok());
  for (const GpuPlacement& p : *placed) {
    const std::string node = hwloc_calc(m.file, "-I numa pci=" + p.gpus.front().bus_id);
    if (per_rank == 1 && !node.empty() && node.find(',') == std::string::npos) {
      EXPECT_EQ(p.share.memory_nodes, std::vector<int>{std::stoi(node)}) << p.gpus.front().bus_id;
    }
  }
}

TEST(NodeGpuPlan, EveryRecordedGpuMachineIsSharedOutWholeAndWithoutOverlap) {
  for (const char* rel :
       {"/topologies/gpu/nvidia-dgx2-16x-v100.xml", "/topologies/gpu/nvidia-dgx2-cpus0-1.xml",
        "/topologies/gpu/ibm-power8-4x-p100.xml",
        "/topologies/gpu/intel-2x-xeon-gpu-ib-wholeio.xml",
        "/topologies/synthetic/synthetic-2pack-2numa-gpu-without-node.xml"}) {
    Machine m = load(rel);
    const int g = static_cast<int>(compute_gpus(m.devices).size());
    const int cpus = static_cast<int>(m.topo.allowed_cpus().count());
    for (int ranks : {1, 2, 3, g, 2 * g, cpus, cpus + 1}) check_plan(m, ranks, 1);
    check_plan(m, 1, g);
  }
}

TEST(NodeGpuPlan, ALoneRankWithEveryGpuGetsTheWholeNode) {
  Machine m = load("/topologies/gpu/ibm-power8-4x-p100.xml");
  auto plan = plan_node_gpus(m.topo, m.devices, m.topo.allowed_cpus(), 1, 4);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->ranks[0].share.cpus, pus(m.file, "all"));
}

TEST(NodeGpuPlan, TwoRanksOnASixteenGpuServerTakeAPackageEach) {
  Machine m = load("/topologies/gpu/nvidia-dgx2-16x-v100.xml");
  auto plan = plan_node_gpus(m.topo, m.devices, m.topo.allowed_cpus(), 2, 1);
  ASSERT_TRUE(plan.ok());
  // Spread, not GPUs 0 and 1 on one package: GPU 0 (package 0) and GPU 8 (package 1).
  EXPECT_EQ(plan->ranks[0].gpus[0]->index, 0);
  EXPECT_EQ(plan->ranks[1].gpus[0]->index, 8);
  EXPECT_EQ(plan->ranks[0].share.cpus, pus(m.file, "package:0"));
  EXPECT_EQ(plan->ranks[1].share.cpus, pus(m.file, "package:1"));
  EXPECT_EQ(plan->ranks[1].share.memory_nodes, std::vector<int>{1});
}

TEST(NodeGpuPlan, NumaNodesWithoutAGpuGoToTheNearestRanks) {
  // POWER8: GPUs on nodes 0 and 1 only; two ranks with GPU 0 (node 0) and GPU 2 (node 1).
  Machine m = load("/topologies/gpu/ibm-power8-4x-p100.xml");
  auto plan = plan_node_gpus(m.topo, m.devices, m.topo.allowed_cpus(), 2, 1);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->ranks[0].share.cpus, pus(m.file, "package:0"));
  EXPECT_EQ(plan->ranks[1].share.cpus, pus(m.file, "package:1"));
}

TEST(NodeGpuPlan, RanksOutnumberingGpusShareThemByLocality) {
  Machine m = load("/topologies/gpu/nvidia-dgx2-16x-v100.xml");
  // 4 PUs, 16 GPUs... take 64 ranks: 4 per GPU, CPUs shared (a note says so).
  auto many = plan_node_gpus(m.topo, m.devices, m.topo.allowed_cpus(), 64, 1);
  ASSERT_TRUE(many.ok());
  EXPECT_EQ(many->ranks[0].gpus[0], many->ranks[3].gpus[0]);
  EXPECT_NE(many->ranks[3].gpus[0], many->ranks[4].gpus[0]);
  // Every rank's share is on its GPU's package.
  for (const NodeRank& r : many->ranks)
    EXPECT_TRUE(r.share.cpus.is_subset_of(pus(m.file, "pci=" + r.gpus[0]->bus_id)));
  // POWER8, 4 GPUs and 160 PUs: 8 ranks, two per GPU, own CPUs, on their GPU's node.
  Machine p = load("/topologies/gpu/ibm-power8-4x-p100.xml");
  auto eight = plan_node_gpus(p.topo, p.devices, p.topo.allowed_cpus(), 8, 1);
  ASSERT_TRUE(eight.ok());
  for (size_t r = 0; r < 8; ++r) {
    EXPECT_EQ(eight->ranks[r].gpus[0]->index, static_cast<int>(r / 2));
    const CpuSet node = pus(p.file, "pci=" + eight->ranks[r].gpus[0]->bus_id);
    EXPECT_FALSE((eight->ranks[r].share.cpus & node).empty());
  }
  EXPECT_NE(eight->notes.front().find("ranks share GPUs"), std::string::npos);
}

TEST(NodeGpuPlan, AGpuWithoutANumaNodeGivesSharesThatDoNotOverlap) {
  // Authored: GPU 0 under the machine (local to every CPU, no node), GPU 1 on package 1.
  Machine m = load("/topologies/synthetic/synthetic-2pack-2numa-gpu-without-node.xml");
  ASSERT_EQ(hwloc_calc(m.file, "-I numa pci=0000:01:00.0"), "0,1");
  auto plan = plan_node_gpus(m.topo, m.devices, m.topo.allowed_cpus(), 2, 1);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE((plan->ranks[0].share.cpus & plan->ranks[1].share.cpus).empty());
  EXPECT_EQ(plan->ranks[0].share.cpus | plan->ranks[1].share.cpus, pus(m.file, "all"));
}

TEST(NodeGpuPlan, PlanRanksWritesEachRanksFastNic) {
  // Authored: the I350 (eno1) shares GPU 1's root complex, the InfiniBand HCA (mlx5_0) only its
  // NUMA node: the HCA is named, with verbs variables, never the 1 GbE port.
  Machine m = load("/topologies/synthetic/synthetic-2pack-2numa-gpu-without-node.xml");
  auto placed = place_node_with_gpus(m.topo, m.devices, m.topo.allowed_cpus(), 2, 1);
  ASSERT_TRUE(placed.ok());
  const GpuPlacement& second = (*placed)[1];
  ASSERT_EQ(second.gpus[0].bus_id, "0000:81:00.0");
  ASSERT_TRUE(second.nic.has_value()) << second.nic_how;
  EXPECT_EQ(second.nic->bus_id, "0000:90:00.0");
  EXPECT_NE(second.nic_how.find("not the management port(s) eno1"), std::string::npos)
      << second.nic_how;
  EXPECT_EQ(second.share.memory_nodes, std::vector<int>{1});
}

TEST(NodeGpuPlan, BadCountsAreRefused) {
  Machine m = load("/topologies/gpu/ibm-power8-4x-p100.xml");
  EXPECT_FALSE(plan_node_gpus(m.topo, m.devices, m.topo.allowed_cpus(), 1, 5).ok());
  EXPECT_FALSE(plan_node_gpus(m.topo, m.devices, m.topo.allowed_cpus(), 0, 1).ok());
  EXPECT_FALSE(
      plan_node_gpus(m.topo, m.devices, m.topo.allowed_cpus(), 3, 2, SlotOrder::by_rank).ok());
}

}  // namespace
}  // namespace threadmap::cluster
