// The binding check: a launcher's binding (affinity strictly inside the cgroup's CPUs) and a
// cgroup narrower than the machine are said, with the launcher's own switch; a process that may
// use everything its cgroup allows says nothing.
#include "src/core/process_binding.hpp"

#include <gtest/gtest.h>

namespace {

using threadmap::binding_of;
using threadmap::CpuSet;

CpuSet cpus(const char* list) { return *CpuSet::parse_list(list); }

TEST(ProcessBinding, UnboundSaysNothing) {
  auto b = binding_of(cpus("0-63"), cpus("0-63"), cpus("0-63"), {});
  EXPECT_FALSE(b.narrower);
  EXPECT_FALSE(b.confined);
  EXPECT_TRUE(b.finding.empty());
}

TEST(ProcessBinding, SlurmsTaskBindingNamesCpuBindNone) {
  // srun --ntasks-per-node=1 under task/affinity: the task bound to one CPU of the node.
  auto b = binding_of(cpus("0"), cpus("0-63"), cpus("0-63"),
                      {{"SLURM_JOB_ID", "7"}, {"SLURM_STEP_ID", "0"}});
  EXPECT_TRUE(b.narrower);
  EXPECT_EQ(b.launcher, "slurm");
  EXPECT_NE(b.finding.find("bound to CPU 0 of the 0-63 its cgroup allows"), std::string::npos)
      << b.finding;
  EXPECT_NE(b.finding.find("salloc --exclusive srun --cpu-bind=none"), std::string::npos) << b.finding;
  EXPECT_NE(b.finding.find("measures 1 CPU of the 64"), std::string::npos) << b.finding;
}

TEST(ProcessBinding, OpenMpiInsideSlurmIsOpenMpisBinding) {
  // mpirun inside an allocation sets both; the innermost launcher (mpirun) bound the rank.
  auto b = binding_of(cpus("0-1"), cpus("0-7"), cpus("0-7"),
                      {{"SLURM_JOB_ID", "7"}, {"OMPI_COMM_WORLD_RANK", "0"}});
  EXPECT_EQ(b.launcher, "openmpi");
  EXPECT_NE(b.finding.find("mpirun --bind-to none"), std::string::npos) << b.finding;
  EXPECT_NE(b.finding.find("CPUs 0-1"), std::string::npos) << b.finding;
}

TEST(ProcessBinding, ACgroupNarrowerThanTheMachineIsSaidApart) {
  auto b = binding_of(cpus("0-3"), cpus("0-3"), cpus("0-15"), {});
  EXPECT_FALSE(b.narrower);
  EXPECT_TRUE(b.confined);
  EXPECT_NE(b.finding.find("its cgroup allows only CPUs 0-3 of this machine's 0-15"),
            std::string::npos)
      << b.finding;
}

}  // namespace
