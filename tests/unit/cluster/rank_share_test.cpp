// Shares along the memory hierarchy, checked against the structure of recorded machines as
// their topology files (tests/data/topologies/README.md) and the vendors document them.
#include "src/cluster/rank_share.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace threadmap;
using namespace threadmap::cluster;

namespace {
Topology load(const std::string& name) {
  auto t = Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/" + name + ".xml");
  EXPECT_TRUE(t) << (t ? "" : t.error().message);
  return *t;
}
std::vector<RankShare> shares(const Topology& topo, int ranks) {
  auto s = split_shares(topo, topo.allowed_cpus(), ranks);
  EXPECT_TRUE(s) << (s ? "" : s.error().message);
  return s ? *s : std::vector<RankShare>{};
}
CpuSet set(const char* list) { return *CpuSet::parse(list); }
}  // namespace

// Dell R740 in SNC2 mode: 2 sockets x 2 sub-NUMA clusters; Intel numbers socket 0's cores even
// and socket 1's odd, SNC nodes interleave (node 0 and 2 on socket 0), SMT siblings are i, i+40.
TEST(RankShare, SubNumaClustersOnePerRank) {
  Topology r740 = load("dell-r740-2x-xeon-gold6230-snc2-2lm");
  std::vector<RankShare> four = shares(r740, 4);
  ASSERT_EQ(four.size(), 4u);
  std::vector<int> nodes;
  CpuSet all;
  for (const RankShare& s : four) {
    ASSERT_EQ(s.memory_nodes.size(), 1u);
    nodes.push_back(s.memory_nodes[0]);
    EXPECT_EQ(s.cpus.count(), 20u);  // 10 cores x 2 threads per SNC node
    EXPECT_TRUE((all & s.cpus).empty());
    all |= s.cpus;
  }
  std::sort(nodes.begin(), nodes.end());
  EXPECT_EQ(nodes, (std::vector<int>{0, 1, 2, 3}));
  // OS node 2 is CPUs 2,6,...,38 and their siblings 42,...,78.
  bool found = false;
  for (const RankShare& s : four)
    if (s.memory_nodes[0] == 2) {
      EXPECT_EQ(s.cpus, set("2-78:4"));
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST(RankShare, TwoRanksTakeOneSocketEach) {
  Topology r740 = load("dell-r740-2x-xeon-gold6230-snc2-2lm");
  std::vector<RankShare> two = shares(r740, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].memory_nodes, (std::vector<int>{0, 2}));  // socket 0's two SNC nodes
  EXPECT_EQ(two[1].memory_nodes, (std::vector<int>{1, 3}));
  EXPECT_EQ(two[0].cpus, set("0-78:2"));  // even cores and their siblings
}

// 4x Opteron 6276: 8 NUMA nodes of 8 cores (two dies per package), no SMT.
TEST(RankShare, MoreNodesThanRanksGivesWholeNodes) {
  Topology opteron = load("amd-4x-opteron6200-bulldozer-8numa");
  std::vector<RankShare> four = shares(opteron, 4);
  ASSERT_EQ(four.size(), 4u);
  for (const RankShare& s : four) {
    EXPECT_EQ(s.memory_nodes.size(), 2u);
    EXPECT_EQ(s.cpus.count(), 16u);
  }
  std::vector<RankShare> sixteen = shares(opteron, 16);
  for (const RankShare& s : sixteen) {
    EXPECT_EQ(s.memory_nodes.size(), 1u);
    EXPECT_EQ(s.cpus.count(), 4u);
  }
}

// Sapphire Rapids Xeon Max 9460: 2 x 40 cores, 2 threads each (siblings i and i+80).
TEST(RankShare, SmtSiblingsStayTogetherUntilThereAreMoreRanksThanCores) {
  Topology spr = load("intel-2x-xeonmax9460-sapphirerapids");
  for (const RankShare& s : shares(spr, 80)) {
    ASSERT_EQ(s.cpus.count(), 2u);
    EXPECT_EQ(s.cpus, spr.smt_siblings(s.cpus.first()));
  }
  std::vector<RankShare> split = shares(spr, 160);
  for (const RankShare& s : split) EXPECT_EQ(s.cpus.count(), 1u);
  EXPECT_NE(split[0].how.find("SMT siblings split"), std::string::npos);
}

TEST(RankShare, UnevenCountsStillGiveWholeCores) {
  Topology spr = load("intel-2x-xeonmax9460-sapphirerapids");
  std::vector<RankShare> three = shares(spr, 3);
  CpuSet all;
  for (const RankShare& s : three) {
    for (int cpu : s.cpus.to_vector()) EXPECT_TRUE((spr.smt_siblings(cpu) - s.cpus).empty());
    all |= s.cpus;
  }
  EXPECT_EQ(all, spr.allowed_cpus());
  EXPECT_EQ(three[0].cpus.count(), 54u);  // 80 cores / 3 = 27, 27, 26 cores
  EXPECT_EQ(three[2].cpus.count(), 52u);
}

TEST(RankShare, BadInput) {
  Topology spr = load("intel-2x-xeonmax9460-sapphirerapids");
  EXPECT_FALSE(split_shares(spr, CpuSet(), 2));
  EXPECT_FALSE(split_shares(spr, spr.allowed_cpus(), 0));
}

TEST(RankShare, ExplicitRankOnAFileTopologyIsSplitNotKept) {
  Topology spr = load("intel-2x-xeonmax9460-sapphirerapids");
  RankIdentity id{1, 2, -1, "explicit"};
  auto share = take_share(spr, id);
  ASSERT_TRUE(share) << share.error().message;
  EXPECT_EQ(share->source, ShareSource::explicit_);
  EXPECT_EQ(share->cpus.count(), 80u);
}
