// Exporters, recommendations and isolated CPUs: the strings other tools read, and the library calls
// the report makes.
#include "src/plan/export.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "src/plan/isolated.hpp"
#include "src/plan/recommend.hpp"
#include "tests/unit/plan/plan_test_util.hpp"

namespace threadmap::plan {
namespace {

Plan three_thread_plan() {
  Plan plan;
  plan.assignments = {{"a", {3}, ""}, {"b", {5}, ""}, {"c", {4}, ""}};
  return plan;
}

TEST(Export, EveryFormatListsCpusInThreadOrder) {
  const Plan plan = three_thread_plan();
  auto text = [&](const char* name) {
    auto format = parse_export_format(name);
    EXPECT_TRUE(format.ok()) << name;
    return export_plan(plan, *format);
  };
  EXPECT_NE(text("taskset").find("taskset -p -c 5 TID_OF_b"), std::string::npos);
  EXPECT_NE(text("taskset").find("taskset -c 3-5 COMMAND"), std::string::npos);
  EXPECT_NE(text("omp").find("OMP_PLACES=\"{3},{5},{4}\""), std::string::npos);
  EXPECT_NE(text("omp").find("OMP_PROC_BIND=close"), std::string::npos);
  EXPECT_NE(text("gomp").find("GOMP_CPU_AFFINITY=\"3 5 4\""), std::string::npos);
  EXPECT_NE(text("kmp").find("proclist=[3,5,4]"), std::string::npos);
  EXPECT_NE(text("likwid").find("likwid-pin -c 3,5,4"), std::string::npos);
  // likwid-pin(1): the parent thread takes the first CPU; pthread workers need one CPU more.
  EXPECT_NE(text("likwid").find("likwid-pin -c 3,3,5,4 COMMAND"), std::string::npos);
  EXPECT_NE(text("slurm").find("--cpu-bind=map_cpu:3,5,4"), std::string::npos);
  EXPECT_NE(text("systemd").find("CPUAffinity=3-5"), std::string::npos);
  EXPECT_NE(text("numactl").find("numactl --physcpubind=3-5 COMMAND"), std::string::npos);
  EXPECT_FALSE(parse_export_format("numa").ok());
}

// Memory lines on the Dell R740 in SNC2 mode, where hwloc's logical NUMA order is OS 0,2,1,3:
// CPU 2 and 6 are on OS node 2 (logical #1), CPU 1 on OS node 1 (tests/data/topologies/README.md;
// the file's NUMANode cpusets). Exports must name OS nodes, as numactl, Slurm and systemd do.
TEST(Export, MemoryNodesFromTheCpusAreOsNumbers) {
  Topology r740 = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/dell-r740-2x-xeon-gold6230-snc2-2lm.xml");
  ASSERT_EQ(r740.pu(2)->numa_os, 2);
  ASSERT_EQ(r740.pu(1)->numa_os, 1);
  Plan plan;
  plan.assignments = {{"a", {2}, ""}, {"b", {6}, ""}, {"c", {1}, ""}};
  std::string numactl = export_plan(plan, ExportFormat::numactl, &r740);
  EXPECT_NE(numactl.find("numactl --physcpubind=1-2,6 --membind=1-2 COMMAND"), std::string::npos)
      << numactl;
  EXPECT_NE(numactl.find("--interleave=1-2"), std::string::npos) << numactl;
  EXPECT_NE(numactl.find("node of each thread's CPU"), std::string::npos) << numactl;
  std::string systemd = export_plan(plan, ExportFormat::systemd, &r740);
  EXPECT_NE(systemd.find("CPUAffinity=1-2,6\nNUMAPolicy=bind\nNUMAMask=1-2\n"), std::string::npos)
      << systemd;
  // Without a stated node Slurm binds each task's memory to its own CPU's node.
  std::string slurm = export_plan(plan, ExportFormat::slurm, &r740);
  EXPECT_NE(slurm.find("srun --cpu-bind=map_cpu:2,6,1 --mem-bind=local COMMAND"), std::string::npos)
      << slurm;
}

TEST(Export, StatedMemoryNodesWinAndMapPerTask) {
  Topology r740 = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/dell-r740-2x-xeon-gold6230-snc2-2lm.xml");
  Plan plan;
  plan.assignments = {{"a", {2}, "", 3}, {"b", {6}, ""}, {"c", {1}, "", 0}};
  std::string slurm = export_plan(plan, ExportFormat::slurm, &r740);
  EXPECT_NE(slurm.find("--mem-bind=map_mem:3,2,0 COMMAND"), std::string::npos) << slurm;
  std::string numactl = export_plan(plan, ExportFormat::numactl, &r740);
  EXPECT_NE(numactl.find("--membind=0,2-3 COMMAND"), std::string::npos) << numactl;
  EXPECT_NE(numactl.find("the spec's memory-node, else the node of the CPU"), std::string::npos);
  // Every thread stated: no topology needed.
  Plan stated;
  stated.assignments = {{"a", {0}, "", 1}, {"b", {1}, "", 1}};
  EXPECT_NE(export_plan(stated, ExportFormat::slurm).find("--mem-bind=map_mem:1,1 COMMAND"),
            std::string::npos);
  EXPECT_NE(export_plan(stated, ExportFormat::systemd).find("NUMAPolicy=bind\nNUMAMask=1\n"),
            std::string::npos);
}

TEST(Export, UnknownNodesAreSaidNotGuessed) {
  // A plan from a latency matrix alone: no topology, no memory-node.
  const Plan plan = three_thread_plan();
  std::string numactl = export_plan(plan, ExportFormat::numactl, nullptr);
  EXPECT_NE(numactl.find("NUMA nodes unknown"), std::string::npos) << numactl;
  EXPECT_EQ(numactl.find("--membind"), std::string::npos) << numactl;
  std::string systemd = export_plan(plan, ExportFormat::systemd, nullptr);
  EXPECT_NE(systemd.find("NUMAPolicy=local"), std::string::npos) << systemd;
  EXPECT_EQ(systemd.find("NUMAMask"), std::string::npos) << systemd;
  EXPECT_NE(export_plan(plan, ExportFormat::slurm, nullptr).find("--mem-bind=local"),
            std::string::npos);
  // Exports without a memory knob are unchanged.
  EXPECT_EQ(export_plan(plan, ExportFormat::omp, nullptr).find("mem"), std::string::npos);
}

TEST(Recommend, PairsAndComputeCpus) {
  latency::Matrix matrix = test::load_matrix(std::string(THREADMAP_TEST_DATA) +
                                             "/latency/AMD_Ryzen_9_5950X_3.40_GHz.csv");
  RecommendInputs in;
  in.matrix = &matrix;
  auto pairs = recommend_pairs(in, 2);
  ASSERT_TRUE(pairs.ok()) << pairs.error().message;
  ASSERT_EQ(pairs->size(), 2u);
  EXPECT_DOUBLE_EQ((*pairs)[0].latency_ns, matrix.between((*pairs)[0].cpu_a, (*pairs)[0].cpu_b));
  EXPECT_LE((*pairs)[0].latency_ns, (*pairs)[1].latency_ns);
  EXPECT_LT((*pairs)[0].latency_ns, 8.0);  // an SMT pair of this CPU
  EXPECT_NE(in.model.find("measured latency"), std::string::npos);

  Topology topo = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/intel-i7-1370p-raptorlake-hybrid.xml");
  RecommendInputs on_topo;
  on_topo.topology = &topo;
  auto compute = recommend_compute_cpus(on_topo, 6);
  ASSERT_TRUE(compute.ok()) << compute.error().message;
  ASSERT_EQ(compute->size(), 6u);
  for (std::size_t i = 0; i < compute->size(); ++i)
    for (std::size_t j = i + 1; j < compute->size(); ++j)
      EXPECT_FALSE(topo.smt_siblings((*compute)[i]).contains((*compute)[j]));
  // 6 P-cores: the compute threads take them, not the E-cores.
  for (int cpu : *compute) EXPECT_LT(cpu, 12) << cpu;
}

}  // namespace
}  // namespace threadmap::plan

namespace threadmap::plan {
namespace {

TEST(Isolated, ReadsTheKernelListAndPrefersIt) {
  const std::string path = testing::TempDir() + "tm_isolated_" + std::to_string(getpid());
  auto read_text = [&](const std::string& text) {
    std::ofstream(path) << text;
    return read_isolated_cpus(path);
  };
  auto some = read_text("8-11\n");
  ASSERT_TRUE(some.ok());
  EXPECT_EQ(some->to_list(), "8-11");
  auto none = read_text("\n");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  auto bad = read_text("eight\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find(path), std::string::npos);
  std::remove(path.c_str());
  auto missing = read_isolated_cpus("/nonexistent/isolated");
  ASSERT_TRUE(missing.ok());
  EXPECT_TRUE(missing->empty());

  Topology topo = test::load_topology(std::string(THREADMAP_TEST_DATA) +
                                      "/topologies/amd-2x-epyc7763-zen3.xml");
  auto spec = parse_spec(R"({"threads": [{"name": "t[0-2]", "traits": ["compute"]}]})", "iso");
  ASSERT_TRUE(spec.ok());
  PlanInputs in;
  in.topology = &topo;
  in.isolated = *some;
  auto plan = make_plan(*spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  for (const auto& a : plan->assignments)
    EXPECT_TRUE(some->contains(a.cpus.first())) << a.thread << " " << a.cpus.first();
  spec->prefer_isolated = false;  // "prefer-isolated": false turns it off
  auto plain = make_plan(*spec, in);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->cost.isolated, 0);
}

}  // namespace
}  // namespace threadmap::plan
