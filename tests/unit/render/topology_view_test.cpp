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

}  // namespace
}  // namespace threadmap::plan::test
