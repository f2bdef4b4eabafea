// memory-node is the OS node number (numactl, /sys) everywhere: on the Dell R740 in SNC2 mode
// hwloc's NUMANode L#1 is OS node 2 (tests/data/topologies/dell-r740-...; the XML's os_index),
// so a spec asking for node 2 must land on the CPUs /sys lists for node2, not on L#2.
#include <gtest/gtest.h>

#include "tests/unit/plan/plan_test_util.hpp"

namespace threadmap::plan::test {
namespace {

const std::string kR740 =
    std::string(THREADMAP_TEST_DATA) + "/topologies/dell-r740-2x-xeon-gold6230-snc2-2lm.xml";

CpuSet os_node_cpus(const Topology& topo, int os_node) {
  for (const NumaNode& n : topo.numa_nodes())
    if (n.os_index == os_node) return n.cpus;
  ADD_FAILURE() << "no OS node " << os_node;
  return {};
}

TEST(NumaNumbering, MemoryNodeIsTheOsNodeNumberOnSnc2) {
  Topology topo = load_topology(kR740);
  const std::string spec = R"({"threads": [
      {"name": "a", "memory-node": 2}, {"name": "b", "memory-node": 2},
      {"name": "c", "memory-node": 2}]})";
  Plan plan = plan_json(spec, &topo, nullptr);
  const CpuSet node2 = os_node_cpus(topo, 2);
  ASSERT_FALSE(node2.empty());
  for (const char* t : {"a", "b", "c"}) {
    EXPECT_TRUE(node2.contains(cpu_of(plan, t)))
        << t << " on CPU " << cpu_of(plan, t) << ", OS node 2 is " << node2.to_list();
  }
  for (const auto& a : plan.assignments)
    EXPECT_NE(a.why.find("near its memory (node 2"), std::string::npos) << a.why;
}

TEST(NumaNumbering, ANodeTheMachineLacksIsAnErrorNamingIt) {
  Topology topo = load_topology(kR740);
  // R740 SNC2: OS nodes 0,1,2,3 hold CPUs (hwloc numbering may differ); 7 does not exist.
  std::string err = plan_error(R"({"threads": [{"name": "a", "memory-node": 7}]})", &topo);
  EXPECT_NE(err.find("memory-node 7"), std::string::npos) << err;
  EXPECT_NE(err.find("no NUMA node 7"), std::string::npos) << err;
}

TEST(NumaNumbering, MatrixAloneSaysNumaUnknown) {
  latency::Matrix m = load_matrix(std::string(THREADMAP_TEST_DATA) +
                                  "/latency/Intel_R_Xeon_R_Platinum_8375C_CPU_2.90GHz.csv");
  Plan plan = plan_json(R"({"threads": [{"name": "a", "memory-node": 0},
      {"name": "b", "memory-node": 0}], "edges": [{"between": ["a", "b"], "weight": 1}]})",
                        nullptr, &m);
  for (const auto& a : plan.assignments) {
    EXPECT_EQ(a.why.find("near its memory"), std::string::npos) << a.why;
    EXPECT_NE(a.why.find("NUMA unknown: no topology given"), std::string::npos) << a.why;
  }
}

}  // namespace
}  // namespace threadmap::plan::test
