// Each launcher's spelling of "which rank am I on this node", as its documentation gives it:
// Open MPI mpirun(1) "OMPI_COMM_WORLD_LOCAL_RANK / _LOCAL_SIZE", PMIx standard
// PMIX_LOCAL_RANK/PMIX_LOCAL_SIZE, Slurm srun(1) "SLURM_LOCALID", "SLURM_TASKS_PER_NODE" with its
// "2(x3),1" compression, MPICH's Hydra MPI_LOCALRANKID/MPI_LOCALNRANKS.
#include "src/cluster/launcher_env.hpp"

#include <gtest/gtest.h>

using namespace threadmap::cluster;

namespace {
std::string error_of(const threadmap::Result<RankIdentity>& r) {
  return r ? std::string("(no error)") : r.error().message;
}
}  // namespace

TEST(LauncherEnv, OpenMpi) {
  auto id = rank_from_environment({{"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                   {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"},
                                   {"OMPI_COMM_WORLD_RANK", "9"}});
  ASSERT_TRUE(id) << error_of(id);
  EXPECT_EQ(id->local_rank, 1);
  EXPECT_EQ(id->local_size, 4);
  EXPECT_EQ(id->global_rank, 9);
  EXPECT_EQ(id->launcher, "openmpi");
}

TEST(LauncherEnv, PmixAndHydra) {
  auto pmix = rank_from_environment({{"PMIX_LOCAL_RANK", "0"}, {"PMIX_LOCAL_SIZE", "2"}});
  ASSERT_TRUE(pmix) << error_of(pmix);
  EXPECT_EQ(pmix->launcher, "pmix");
  EXPECT_EQ(pmix->global_rank, -1);
  auto hydra = rank_from_environment(
      {{"MPI_LOCALRANKID", "3"}, {"MPI_LOCALNRANKS", "8"}, {"PMI_RANK", "11"}});
  ASSERT_TRUE(hydra) << error_of(hydra);
  EXPECT_EQ(hydra->launcher, "hydra");
  EXPECT_EQ(hydra->local_rank, 3);
  EXPECT_EQ(hydra->local_size, 8);
  EXPECT_EQ(hydra->global_rank, 11);
}

TEST(LauncherEnv, SlurmTasksOnThisNode) {
  // Nodes 0-2 run 2 tasks each, node 3 runs 1 (srun -n 7 -N 4).
  auto id = rank_from_environment({{"SLURM_LOCALID", "0"},
                                   {"SLURM_NODEID", "3"},
                                   {"SLURM_TASKS_PER_NODE", "2(x3),1"},
                                   {"SLURM_PROCID", "6"}});
  ASSERT_TRUE(id) << error_of(id);
  EXPECT_EQ(id->local_size, 1);
  EXPECT_EQ(id->global_rank, 6);
  EXPECT_EQ(id->launcher, "slurm");
  // The step's own list wins over the job's (srun -n 2 inside a bigger allocation).
  auto step = rank_from_environment({{"SLURM_LOCALID", "1"},
                                     {"SLURM_NODEID", "0"},
                                     {"SLURM_TASKS_PER_NODE", "8"},
                                     {"SLURM_STEP_TASKS_PER_NODE", "2"}});
  ASSERT_TRUE(step) << error_of(step);
  EXPECT_EQ(step->local_size, 2);
  EXPECT_EQ(*slurm_tasks_on_node("4,2(x2)", 2), 2);
  EXPECT_FALSE(slurm_tasks_on_node("2(x3)", 3));
  EXPECT_FALSE(slurm_tasks_on_node("2(3)", 0));
  EXPECT_FALSE(slurm_tasks_on_node("", 0));
}

TEST(LauncherEnv, OpenMpiWinsOverTheAllocationAroundIt) {
  // mpirun inside an sbatch job: Slurm's variables describe the allocation, not this rank.
  auto id = rank_from_environment({{"SLURM_LOCALID", "0"},
                                   {"SLURM_TASKS_PER_NODE", "1"},
                                   {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                   {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}});
  ASSERT_TRUE(id) << error_of(id);
  EXPECT_EQ(id->launcher, "openmpi");
  EXPECT_EQ(id->local_rank, 1);
}

TEST(LauncherEnv, OutsideALauncherSaysWhatWasLookedFor) {
  auto id = rank_from_environment({{"PATH", "/bin"}});
  ASSERT_FALSE(id);
  const std::string msg = id.error().message;
  for (const char* var :
       {"OMPI_COMM_WORLD_LOCAL_RANK", "PMIX_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"})
    EXPECT_NE(msg.find(var), std::string::npos) << msg;
}

TEST(LauncherEnv, MalformedValuesNameTheVariable) {
  auto bad = rank_from_environment(
      {{"OMPI_COMM_WORLD_LOCAL_RANK", "x1"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("OMPI_COMM_WORLD_LOCAL_RANK='x1'"), std::string::npos);
  auto past = rank_from_environment({{"MPI_LOCALRANKID", "2"}, {"MPI_LOCALNRANKS", "2"}});
  ASSERT_FALSE(past);
  EXPECT_NE(past.error().message.find("not below"), std::string::npos);
  auto missing = rank_from_environment({{"PMIX_LOCAL_RANK", "0"}});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("PMIX_LOCAL_SIZE"), std::string::npos);
  auto slurm = rank_from_environment({{"SLURM_LOCALID", "0"}});
  ASSERT_FALSE(slurm);
}

TEST(LauncherEnv, ExplicitRankSpec) {
  auto id = resolve_ranks("1/4", {});
  ASSERT_TRUE(id) << error_of(id);
  EXPECT_EQ(id->local_rank, 1);
  EXPECT_EQ(id->local_size, 4);
  EXPECT_EQ(id->launcher, "explicit");
  for (const char* bad : {"4/4", "1/0", "-1/2", "1", "a/b", "1/2/3", "", " 1/2", "1/"})
    EXPECT_FALSE(resolve_ranks(bad, {})) << bad;
  EXPECT_FALSE(resolve_ranks("auto", {}));
}
