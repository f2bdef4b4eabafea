// plan --ranks exports in the syntax the launchers document: Slurm srun(1) --cpu-bind=
// map_cpu:<list>|mask_cpu:<list> and --mem-bind=map_mem|mask_mem (hex masks), Open MPI's
// rankfile "rank N=host slot=..." with rmaps_rank_file_physical.
#include "src/cluster/rank_export.hpp"

#include <gtest/gtest.h>

using namespace threadmap;
using namespace threadmap::cluster;

namespace {
RankShare share(const char* cpus, std::vector<int> nodes) {
  RankShare s;
  s.cpus = *CpuSet::parse(cpus);
  s.memory_nodes = std::move(nodes);
  return s;
}
}  // namespace

TEST(RankExport, HexMasksHaveNoSeparators) {
  EXPECT_EQ(plain_hex_mask({0, 1}), "0x3");
  EXPECT_EQ(plain_hex_mask({4}), "0x10");
  EXPECT_EQ(plain_hex_mask({64}), "0x10000000000000000");
  EXPECT_EQ(plain_hex_mask({}), "0x0");
}

TEST(RankExport, SlurmUsesMapWhenEachRankHasOne) {
  std::string one = export_ranks({share("0", {0}), share("1", {0})}, RankExport::slurm, "n1");
  EXPECT_NE(one.find("--cpu-bind=map_cpu:0,1"), std::string::npos) << one;
  EXPECT_NE(one.find("--mem-bind=map_mem:0,0"), std::string::npos) << one;
  std::string many =
      export_ranks({share("0-3", {0, 1}), share("4-7", {2})}, RankExport::slurm, "n1");
  EXPECT_NE(many.find("--cpu-bind=mask_cpu:0xf,0xf0"), std::string::npos) << many;
  EXPECT_NE(many.find("--mem-bind=mask_mem:0x3,0x4"), std::string::npos) << many;
  std::string unknown = export_ranks({share("0", {}), share("1", {})}, RankExport::slurm, "n1");
  EXPECT_EQ(unknown.find("--mem-bind="), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("NUMA nodes unknown"), std::string::npos) << unknown;
}

TEST(RankExport, RankfileListsPhysicalCpus) {
  std::string rf = export_ranks({share("0-1,4", {0}), share("2", {0})}, RankExport::rankfile, "n7");
  EXPECT_NE(rf.find("rank 0=n7 slot=0,1,4\n"), std::string::npos) << rf;
  EXPECT_NE(rf.find("rank 1=n7 slot=2\n"), std::string::npos) << rf;
  EXPECT_NE(rf.find("rmaps_rank_file_physical 1"), std::string::npos) << rf;
  EXPECT_FALSE(parse_rank_export("taskset"));
}
