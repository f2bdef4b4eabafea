// Topology on recorded real machines (golden values from hwloc-calc on the same files) and on
// this machine.
#include "threadmap/topology.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

using threadmap::CpuSet;
using threadmap::Level;
using threadmap::Topology;

namespace {

Topology load(const std::string& name) {
  auto t = Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/" + name + ".xml");
  EXPECT_TRUE(t.ok()) << name << ": " << (t.ok() ? "" : t.error().message);
  if (!t.ok()) std::abort();
  return *t;
}

struct Golden {
  const char* file;
  int packages, numa, l3, cores, pus, dies;
  const char* core0;  // PUs of logical core 0
  const char* l3_0;   // PUs of logical L3 0
};

const Golden kGolden[] = {
    {"amd-2x-epyc7763-zen3", 2, 1, 16, 128, 128, 0, "0", "0-7"},
    {"amd-2x-epyc9654-zen4", 2, 1, 24, 192, 384, 24, "0,192", "0-7,192-199"},
    {"amd-4x-opteron6200-bulldozer-8numa", 4, 8, 8, 64, 64, 0, "0", "0-7"},
    {"amd-ryzen-ai9-hx370-zen5-hybrid", 1, 1, 2, 12, 24, 0, "0,12", "0-3,12-15"},
    {"intel-2x-xeonmax9460-sapphirerapids", 2, 1, 2, 80, 160, 0, "0,80", "0-39,80-119"},
    {"intel-i7-1370p-raptorlake-hybrid", 1, 1, 1, 14, 20, 0, "0-1", "0-19"},
    {"nvidia-dgx-spark-gb10-arm-hybrid", 1, 1, 2, 20, 20, 0, "0", "0-9"},
    {"sgi-uv2000-24x-xeon-e5-4640", 24, 24, 24, 192, 384, 0, "0,192", "0-7,192-199"},
    {"this-vm-kvm-2vcpu-epyc", 1, 1, 1, 2, 2, 0, "0", "0-1"},
};

}  // namespace

TEST(TopologyGolden, CountsSiblingsAndL3DomainsMatchHwloc) {
  for (const Golden& g : kGolden) {
    SCOPED_TRACE(g.file);
    Topology t = load(g.file);
    auto c = t.counts();
    EXPECT_EQ(c.packages, g.packages);
    EXPECT_EQ(c.numa_nodes, g.numa);
    EXPECT_EQ(c.l3_caches, g.l3);
    EXPECT_EQ(c.cores, g.cores);
    EXPECT_EQ(c.pus, g.pus);
    EXPECT_EQ(c.dies, g.dies);
    EXPECT_EQ(t.pus().size(), static_cast<size_t>(g.pus));
    EXPECT_EQ(t.groups(Level::core).at(0).to_list(), g.core0);
    EXPECT_EQ(t.groups(Level::l3).at(0).to_list(), g.l3_0);
    EXPECT_EQ(t.complete_cpus().count(), static_cast<size_t>(g.pus));
    EXPECT_EQ(t.allowed_cpus(), t.complete_cpus());
    // Every PU sits in exactly one core, and the core groups partition the machine.
    CpuSet seen;
    for (const CpuSet& core : t.groups(Level::core)) {
      EXPECT_FALSE(seen.intersects(core));
      seen |= core;
    }
    EXPECT_EQ(seen, t.complete_cpus());
  }
}

TEST(TopologySmt, SiblingListsFollowTheCores) {
  Topology spr = load("intel-2x-xeonmax9460-sapphirerapids");
  EXPECT_EQ(spr.smt_siblings(0).to_list(), "0,80");
  EXPECT_EQ(spr.smt_siblings(80).to_list(), "0,80");
  EXPECT_EQ(spr.smt_siblings(159).to_list(), "79,159");
  Topology uv = load("sgi-uv2000-24x-xeon-e5-4640");
  EXPECT_EQ(uv.smt_siblings(383).to_list(), "191,383");
  Topology raptor = load("intel-i7-1370p-raptorlake-hybrid");
  EXPECT_EQ(raptor.smt_siblings(1).to_list(), "0-1");  // P-core: siblings adjacent
  EXPECT_EQ(raptor.smt_siblings(19).to_list(), "19");  // E-core: no SMT
  Topology epyc = load("amd-2x-epyc7763-zen3");
  EXPECT_EQ(epyc.smt_siblings(5).to_list(), "5");
  EXPECT_TRUE(epyc.smt_siblings(100000).empty());
}

TEST(TopologyDomains, ChipletL3DomainsAndPackages) {
  Topology genoa = load("amd-2x-epyc9654-zen4");
  auto l3 = genoa.groups(Level::l3);
  ASSERT_EQ(l3.size(), 24u);
  for (const CpuSet& d : l3) EXPECT_EQ(d.count(), 16u);  // 8 cores x SMT2 per CCD
  EXPECT_EQ(genoa.groups(Level::die).size(), 24u);
  auto pkgs = genoa.groups(Level::package);
  ASSERT_EQ(pkgs.size(), 2u);
  EXPECT_EQ(pkgs[0].count(), 192u);
  Topology milan = load("amd-2x-epyc7763-zen3");
  EXPECT_EQ(milan.groups(Level::l3).at(15).to_list(), "120-127");
  Topology opteron = load("amd-4x-opteron6200-bulldozer-8numa");
  EXPECT_EQ(opteron.groups(Level::numa).size(), 8u);
  EXPECT_EQ(opteron.groups(Level::l2).at(0).to_list(), "0-1");  // Bulldozer module
}

TEST(TopologyPlaces, PuPlacesAndSharedLevels) {
  Topology genoa = load("amd-2x-epyc9654-zen4");
  const auto* p = genoa.pu(200);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->core, 8);
  EXPECT_EQ(p->l3, 1);
  EXPECT_EQ(p->package, 0);
  EXPECT_EQ(genoa.shared_level(0, 0), Level::pu);
  EXPECT_EQ(genoa.shared_level(0, 192), Level::core);
  EXPECT_EQ(genoa.shared_level(0, 1), Level::l3);
  EXPECT_EQ(genoa.shared_level(0, 8), Level::package);
  EXPECT_EQ(genoa.shared_level(0, 96), Level::machine);
  Topology raptor = load("intel-i7-1370p-raptorlake-hybrid");
  EXPECT_EQ(raptor.shared_level(12, 13), Level::l2);  // E-core module shares its L2
  Topology opteron = load("amd-4x-opteron6200-bulldozer-8numa");
  EXPECT_TRUE(opteron.same_numa(0, 7));
  EXPECT_FALSE(opteron.same_numa(0, 8));
}

// On this R740 in SNC2 mode hwloc numbers NUMA nodes in tree order, so its logical node #1 is
// the kernel's node 2 (the XML says so: os_index="2" second). numactl and /sys use the OS
// numbers, so those are what threadmap exposes.
TEST(TopologyNuma, NodesCarryTheirOsNumbers) {
  Topology dell = load("dell-r740-2x-xeon-gold6230-snc2-2lm");
  auto nodes = dell.numa_nodes();
  ASSERT_EQ(nodes.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(nodes[static_cast<std::size_t>(i)].os_index, i);
  // The XML's node masks: OS node k holds CPUs k, k+4, k+8, ... (cpuset 0x1111..., 0x2222...).
  EXPECT_TRUE(nodes[1].cpus.contains(1));
  EXPECT_TRUE(nodes[2].cpus.contains(2));
  EXPECT_EQ(nodes[1].logical_index, 2);
  const threadmap::PuPlace* cpu1 = dell.pu(1);
  ASSERT_NE(cpu1, nullptr);
  EXPECT_EQ(cpu1->numa_os, 1);
  EXPECT_EQ(cpu1->numa, 2);
}

TEST(TopologyKinds, HybridMachinesReportCpuKinds) {
  Topology raptor = load("intel-i7-1370p-raptorlake-hybrid");
  ASSERT_EQ(raptor.cpu_kinds().size(), 2u);
  // The most efficient-ranked kind (highest efficiency) holds the P-cores with SMT.
  const auto& kinds = raptor.cpu_kinds();
  const auto& fast = kinds[0].efficiency > kinds[1].efficiency ? kinds[0] : kinds[1];
  EXPECT_TRUE(fast.cpus.contains(0));
  EXPECT_EQ(fast.cpus.count(), 12u);
  EXPECT_EQ(raptor.pu(0)->kind, fast.index);
  Topology vm = load("this-vm-kvm-2vcpu-epyc");
  EXPECT_LE(vm.cpu_kinds().size(), 1u);
}

TEST(TopologyLoad, RejectsMissingAndNonXmlFiles) {
  auto missing = Topology::load_xml("/nonexistent/topology.xml");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/nonexistent/topology.xml"), std::string::npos);
  auto not_xml = Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/README.md");
  ASSERT_FALSE(not_xml.ok());
  EXPECT_NE(not_xml.error().message.find("not an hwloc XML"), std::string::npos);
  auto dir = Topology::load_xml(THREADMAP_TEST_DATA);
  EXPECT_FALSE(dir.ok());
}

TEST(TopologyThisMachine, PuCountMatchesTheOs) {
  auto t = Topology::load_this_machine();
  ASSERT_TRUE(t.ok()) << t.error().message;
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  EXPECT_EQ(static_cast<long>(t->counts().pus), online);
  EXPECT_TRUE(t->is_this_machine());
  EXPECT_FALSE(t->allowed_cpus().empty());
  EXPECT_TRUE(t->allowed_cpus().is_subset_of(t->complete_cpus()));
}
