// Resolving CPU expressions against recorded machines: object locations use logical indexes,
// results are OS CPU numbers, errors name the token.
#include <gtest/gtest.h>

#include "threadmap/topology.hpp"

using threadmap::Topology;

namespace {

Topology load(const std::string& name) {
  auto t = Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/" + name + ".xml");
  if (!t.ok()) std::abort();
  return *t;
}

std::string resolve(const Topology& t, const char* expr) {
  auto r = t.resolve(expr);
  EXPECT_TRUE(r.ok()) << expr << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? r->to_list() : "<error>";
}

std::string error_of(const Topology& t, const char* expr) {
  auto r = t.resolve(expr);
  EXPECT_FALSE(r.ok()) << expr << " resolved to " << (r.ok() ? r->to_list() : "");
  return r.ok() ? "" : r.error().message;
}

}  // namespace

TEST(Resolve, ListsMasksAndAll) {
  Topology spr = load("intel-2x-xeonmax9460-sapphirerapids");
  EXPECT_EQ(resolve(spr, "0-3,8"), "0-3,8");
  EXPECT_EQ(resolve(spr, "0xf"), "0-3");
  EXPECT_EQ(resolve(spr, "all"), "0-159");
}

TEST(Resolve, ObjectLocationsUseLogicalIndexes) {
  Topology spr = load("intel-2x-xeonmax9460-sapphirerapids");
  EXPECT_EQ(resolve(spr, "core:0-3"), "0-3,80-83");
  EXPECT_EQ(resolve(spr, "pu:1"), "80");  // logical PU 1 is the SMT sibling of PU 0
  EXPECT_EQ(resolve(spr, "package:1.core:2"), "42,122");
  EXPECT_EQ(resolve(spr, "l3:1"), "40-79,120-159");
  EXPECT_EQ(resolve(spr, "socket:0.core:0 package:1.core:0"), "0,40,80,120");
  EXPECT_EQ(resolve(spr, "core:0+core:1"), "0-1,80-81");
  EXPECT_EQ(resolve(spr, "package:all.core:0"), "0,40,80,120");
  Topology genoa = load("amd-2x-epyc9654-zen4");
  EXPECT_EQ(resolve(genoa, "L3Cache:2"), "16-23,208-215");
  EXPECT_EQ(resolve(genoa, "die:1"), "8-15,200-207");
  Topology opteron = load("amd-4x-opteron6200-bulldozer-8numa");
  EXPECT_EQ(resolve(opteron, "numa:1"), "8-15");
  EXPECT_EQ(resolve(opteron, "node:7"), "56-63");
  EXPECT_EQ(resolve(opteron, "l2:1"), "2-3");
}

// NUMA nodes in expressions are OS numbers (numactl's), the one exception to hwloc's logical
// indexes. On the R740 in SNC2 mode each socket's cores alternate between two sub-NUMA nodes and
// hwloc orders the nodes 0,2,1,3: OS node 2 holds CPUs 2,6,...,78 (hwloc-calc --physical-input
// node:2 agrees), which is hwloc's logical NUMANode 1.
TEST(Resolve, NumaNodesAreOsNumbers) {
  Topology r740 = load("dell-r740-2x-xeon-gold6230-snc2-2lm");
  const std::string node2 = threadmap::CpuSet::parse("2-78:4")->to_list();
  const std::string node1 = threadmap::CpuSet::parse("1-77:4")->to_list();
  EXPECT_EQ(resolve(r740, "numa:2"), node2);
  EXPECT_EQ(resolve(r740, "node:1"), node1);
  // Intel numbers socket 0's cores even and socket 1's odd here: nodes 0 and 2 are socket 0.
  EXPECT_EQ(resolve(r740, "package:0.numa:2"), node2);
  EXPECT_NE(error_of(r740, "package:1.numa:2").find("NUMA node 2"), std::string::npos);
  EXPECT_EQ(resolve(r740, "numa:all"), "0-79");
  const std::string missing = error_of(r740, "numa:4");
  EXPECT_NE(missing.find("NUMA node 4"), std::string::npos) << missing;
  EXPECT_NE(missing.find("0-3"), std::string::npos) << missing;
}

TEST(Resolve, ErrorsNameTheToken) {
  Topology spr = load("intel-2x-xeonmax9460-sapphirerapids");
  EXPECT_NE(error_of(spr, "l9:0").find("'l9'"), std::string::npos);
  EXPECT_NE(error_of(spr, "core:80").find("index 80"), std::string::npos);
  EXPECT_NE(error_of(spr, "core:").find("'core:'"), std::string::npos);
  EXPECT_NE(error_of(spr, "core:x").find("'x'"), std::string::npos);
  EXPECT_NE(error_of(spr, "die:0").find("no 'die' level"), std::string::npos);
  EXPECT_NE(error_of(spr, "200").find("CPU 200"), std::string::npos);
  EXPECT_NE(error_of(spr, "0-3,,4").find("empty item"), std::string::npos);
  EXPECT_FALSE(error_of(spr, "").empty());
  EXPECT_FALSE(error_of(spr, "banana").empty());
}
