// The topology tree (`threadmap topo`): levels hwloc numbers per depth keep their depth.
#include "src/render/topology_view.hpp"

#include <gtest/gtest.h>

#include "tests/unit/plan/plan_test_util.hpp"

namespace threadmap::plan::test {
namespace {

TEST(TopologyTree, NestedGroupsPrintWithTheirDepth) {
  // hwloc numbers Groups per depth: both depths start at L#0. The tree names them Group0/Group1.
  Topology topo = load_topology(std::string(THREADMAP_TEST_DATA) +
                                "/topologies/synthetic/synthetic-2pack-nested-groups.xml");
  const std::string tree = render::topology_tree(topo);
  EXPECT_NE(tree.find("Group0 L#0"), std::string::npos) << tree;
  EXPECT_NE(tree.find("Group1 L#0"), std::string::npos) << tree;
  EXPECT_EQ(tree.find("Group L#0"), std::string::npos) << tree;
}

// This VM's hwloc reports one CPU kind (forced_efficiency 0 on both vCPUs): no kind line, which
// would say "CPU kind 0 (efficiency 0)" about nothing. A hybrid part still lists its kinds.
TEST(TopologyTree, OneCpuKindIsNotListed) {
  Topology vm =
      load_topology(std::string(THREADMAP_TEST_DATA) + "/topologies/this-vm-kvm-2vcpu-epyc.xml");
  ASSERT_EQ(vm.cpu_kinds().size(), 1u);
  EXPECT_EQ(render::topology_tree(vm).find("CPU kind"), std::string::npos)
      << render::topology_tree(vm);
  Topology hybrid = load_topology(std::string(THREADMAP_TEST_DATA) +
                                  "/topologies/intel-i7-1370p-raptorlake-hybrid.xml");
  EXPECT_NE(render::topology_tree(hybrid).find("CPU kind 1"), std::string::npos);
}

}  // namespace
}  // namespace threadmap::plan::test
