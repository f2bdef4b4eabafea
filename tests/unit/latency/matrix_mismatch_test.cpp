// A loaded matrix is checked against the machine it is used on: the recorded 2-vCPU VM (CPUs
// 0-1, model "AMD EPYC" in its hwloc export) against matrices of itself and of other machines.
#include "src/latency/matrix_mismatch.hpp"

#include <gtest/gtest.h>

#include <string>

namespace threadmap::latency {
namespace {

const std::string kData = THREADMAP_TEST_DATA;

class MatrixMismatch : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = Topology::load_xml(kData + "/topologies/this-vm-kvm-2vcpu-epyc.xml");
    ASSERT_TRUE(loaded) << loaded.error().message;
    topo_ = std::make_unique<Topology>(*loaded);
  }
  std::unique_ptr<Topology> topo_;
};

TEST_F(MatrixMismatch, AMatrixOfThisMachineRaisesNothing) {
  Matrix m = make_matrix({0, 1});
  m.cpu_model = "AMD EPYC";
  EXPECT_TRUE(matrix_mismatch_notes(m, *topo_).empty());
  m.cpus = {1};  // a matrix of some of the CPUs still describes this machine
  m.one_way_ns = {0};
  EXPECT_TRUE(matrix_mismatch_notes(m, *topo_).empty());
}

TEST_F(MatrixMismatch, CpusTheMachineLacksAreNamedWithTheSource) {
  Matrix m = make_matrix({0, 1, 2, 3});
  m.source = "other.csv";
  auto notes = matrix_mismatch_notes(m, *topo_);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("other.csv"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("covers CPUs 0-3 but this machine has 0-1"), std::string::npos)
      << notes[0];
}

TEST_F(MatrixMismatch, AnotherCpuModelIsNamedButAnUnknownOneIsNot) {
  Matrix m = make_matrix({0, 1});
  m.cpu_model = "Intel Core i9-12900K";
  auto notes = matrix_mismatch_notes(m, *topo_);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("'Intel Core i9-12900K', this machine is a 'AMD EPYC'"),
            std::string::npos)
      << notes[0];
  m.cpu_model.clear();  // a CSV says no model: nothing to compare
  EXPECT_TRUE(matrix_mismatch_notes(m, *topo_).empty());
}

}  // namespace
}  // namespace threadmap::latency
