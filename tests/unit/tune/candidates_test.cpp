// The candidate set: what each built-in name pins on a known topology, that identical ones are
// run once and named in a note, and that bad names are refused before anything runs.
#include "src/tune/candidates.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "src/tune/reproduce.hpp"
#include "tests/unit/tune/candidate_helpers.hpp"

using namespace threadmap;

namespace {

using tm_test::find;
using tm_test::load;
using tm_test::names;

}  // namespace

// Two CPUs, one core each, one L3, one node (lscpu of this VM): compact, scatter, one core per
// thread, one L3 and one node all pin CPUs 0,1 in that order, so they run once, as compact.
TEST(TuneCandidates, TwoCpuVmCollapsesToThreeAndSaysSo) {
  Topology t = load("this-vm-kvm-2vcpu-epyc.xml");
  auto set = tune::make_candidates("", t, {"prog"}, false);
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(names(*set), (std::vector<std::string>{"os", "compact", "one-core"}));
  EXPECT_EQ(find(*set, "compact")->order, (std::vector<int>{0, 1}));
  EXPECT_EQ(find(*set, "one-core")->order, (std::vector<int>{0}));
  bool noted = false;
  for (const auto& n : set->notes)
    noted = noted ||
            (n.find("scatter") != std::string::npos && n.find("one-node") != std::string::npos &&
             n.find("as compact") != std::string::npos);
  EXPECT_TRUE(noted);
}

// SMT2 cores in two packages with several L3s: every built-in differs, one-core holds exactly
// the two hardware threads of one core, core-per-thread never uses two threads of a core.
TEST(TuneCandidates, SmtMachineKeepsEveryBuiltinDistinct) {
  Topology t = load("synthetic/synthetic-2pack-2die-2l3-4core-smt2.xml");
  auto set = tune::make_candidates("", t, {"prog"}, false);
  ASSERT_TRUE(set) << set.error().message;
  for (const char* n : {"os", "compact", "scatter", "core-per-thread", "one-core", "one-l3"})
    EXPECT_NE(find(*set, n), nullptr) << n;
  const auto* one_core = find(*set, "one-core");
  ASSERT_NE(one_core, nullptr);
  ASSERT_EQ(one_core->order.size(), 2u);
  EXPECT_EQ(t.smt_siblings(one_core->order[0]).count(), 2u);
  EXPECT_TRUE(t.smt_siblings(one_core->order[0]).contains(one_core->order[1]));
  const auto* per_core = find(*set, "core-per-thread");
  ASSERT_NE(per_core, nullptr);
  EXPECT_EQ(per_core->order.size(), t.groups(Level::core).size());
  for (int a : per_core->order)
    for (int b : per_core->order)
      if (a != b) {
        EXPECT_FALSE(t.smt_siblings(a).contains(b));
      }
  const auto* l3 = find(*set, "one-l3");
  ASSERT_NE(l3, nullptr);
  EXPECT_EQ(CpuSet::from_vector(l3->order), t.groups(Level::l3).front() & t.allowed_cpus());
}

TEST(TuneCandidates, OsIsAlwaysFirstAndNamedListsAreKept) {
  Topology t = load("this-vm-kvm-2vcpu-epyc.xml");
  auto set = tune::make_candidates("one-core,cpus:1", t, {"prog", "a b"}, false);
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(names(*set), (std::vector<std::string>{"os", "one-core", "cpus:1"}));
  EXPECT_EQ(tune::run_line(set->list[2]), "threadmap run --cpus 1 --policy compact -- prog 'a b'");
  EXPECT_EQ(tune::run_line(set->list[0]), "prog 'a b'");
}

TEST(TuneCandidates, ThreadCacheAddsACopyOfEach) {
  Topology t = load("this-vm-kvm-2vcpu-epyc.xml");
  auto set = tune::make_candidates("os,one-core", t, {"prog"}, true);
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(names(*set),
            (std::vector<std::string>{"os", "one-core", "os+cache", "one-core+cache"}));
  EXPECT_TRUE(set->list[3].options.thread_cache);
  EXPECT_EQ(set->list[3].options.cpus, "0");
}

TEST(TuneCandidates, BadNamesAreRefusedNamingThem) {
  Topology t = load("this-vm-kvm-2vcpu-epyc.xml");
  auto unknown = tune::make_candidates("os,fastest", t, {"prog"}, false);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, std::errc::invalid_argument);
  EXPECT_NE(unknown.error().message.find("unknown candidate 'fastest'"), std::string::npos);
  auto cpus = tune::make_candidates("cpus:7", t, {"prog"}, false);
  ASSERT_FALSE(cpus);
  EXPECT_NE(cpus.error().message.find("cpus:7"), std::string::npos);
  auto plan = tune::make_candidates("plan:/nonexistent/plan.json", t, {"prog"}, false);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().code, std::errc::invalid_argument);
}

// The winner's lines: the run line, and the same CPU order in the tools that apply here.
TEST(TuneCandidates, ReproduceLinesCarryTheOrderAndTheCommand) {
  Topology t = load("this-vm-kvm-2vcpu-epyc.xml");
  auto set = tune::make_candidates("compact", t, {"prog", "-x"}, false);
  ASSERT_TRUE(set);
  tune::ReproduceTools openmp_program;
  openmp_program.taskset = true;
  openmp_program.openmp = true;
  std::string lines = tune::reproduce_lines(set->list[1], &t, openmp_program);
  EXPECT_NE(lines.find("threadmap run --cpus 0-1 --policy compact -- prog -x"), std::string::npos);
  EXPECT_NE(lines.find("OMP_PLACES=\"{0},{1}\""), std::string::npos) << lines;
  EXPECT_NE(lines.find("taskset -c 0-1 prog -x"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("COMMAND"), std::string::npos) << lines;
  // Tune knows neither the thread IDs nor the thread count: no lines that need them.
  EXPECT_EQ(lines.find("TID_OF"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("OMP_NUM_THREADS"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("srun"), std::string::npos) << lines;
}

// Lines only for what applies: no OpenMP variables for a program without an OpenMP runtime,
// numactl where installed (with no memory binding tune did not measure), srun inside Slurm.
TEST(TuneCandidates, ReproduceLinesOnlyForWhatApplies) {
  Topology t = load("this-vm-kvm-2vcpu-epyc.xml");
  auto set = tune::make_candidates("one-core", t, {"prog"}, false);
  ASSERT_TRUE(set);
  tune::ReproduceTools numactl;
  numactl.numactl = true;
  numactl.taskset = true;
  std::string lines = tune::reproduce_lines(set->list[1], &t, numactl);
  EXPECT_NE(lines.find("numactl --physcpubind=0 prog\n"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("taskset"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("OMP_"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("srun"), std::string::npos) << lines;
  tune::ReproduceTools slurm;
  slurm.srun = true;
  lines = tune::reproduce_lines(set->list[1], &t, slurm);
  EXPECT_NE(lines.find("srun --cpu-bind=map_cpu:0 prog"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("numactl"), std::string::npos) << lines;
}

// Every part of the winner is kept: the cache rides along in every line that has a program,
// and a candidate that pins nothing gets no pinning line.
TEST(TuneCandidates, ReproduceLinesKeepTheCache) {
  Topology t = load("this-vm-kvm-2vcpu-epyc.xml");
  auto set = tune::make_candidates("one-core", t, {"prog"}, /*thread_cache=*/true);
  ASSERT_TRUE(set);
  tune::ReproduceTools tools;
  tools.taskset = true;
  tools.cache_library = "/opt/tm/lib/libthreadmap-cache.so";
  const tune::Candidate* pinned = find(*set, "one-core+cache");
  ASSERT_TRUE(pinned);
  std::string lines = tune::reproduce_lines(*pinned, &t, tools);
  EXPECT_NE(lines.find("threadmap run --cpus 0 --policy compact --thread-cache -- prog"),
            std::string::npos)
      << lines;
  EXPECT_NE(lines.find("taskset -c 0 env LD_PRELOAD=/opt/tm/lib/libthreadmap-cache.so prog"),
            std::string::npos)
      << lines;
  const tune::Candidate* cache_only = find(*set, "os+cache");
  ASSERT_TRUE(cache_only);
  lines = tune::reproduce_lines(*cache_only, &t, tools);
  EXPECT_NE(lines.find("# threadmap (the thread cache):\nthreadmap run --thread-cache -- prog"),
            std::string::npos)
      << lines;
  EXPECT_EQ(lines.find("pins"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("taskset"), std::string::npos) << lines;
  // No cache library found: the whole-process line would drop the cache, so there is none.
  tools.cache_library.clear();
  lines = tune::reproduce_lines(*pinned, &t, tools);
  EXPECT_EQ(lines.find("taskset"), std::string::npos) << lines;
  EXPECT_NE(lines.find("only the threadmap line keeps it"), std::string::npos) << lines;
}

// What a candidate applies, for "a simpler candidate as good as the leader".
TEST(TuneCandidates, SimplerMeansASubsetOfTheSameParts) {
  Topology t = load("this-vm-kvm-2vcpu-epyc.xml");
  auto set = tune::make_candidates("one-core,compact", t, {"prog"}, /*thread_cache=*/true);
  ASSERT_TRUE(set);
  const tune::Candidate& os = *find(*set, "os");
  const tune::Candidate& cache = *find(*set, "os+cache");
  const tune::Candidate& one_core = *find(*set, "one-core");
  const tune::Candidate& one_core_cache = *find(*set, "one-core+cache");
  const tune::Candidate& compact_cache = *find(*set, "compact+cache");
  EXPECT_TRUE(os.is_os());
  EXPECT_FALSE(cache.is_os());
  EXPECT_EQ(os.parts(), 0);
  EXPECT_EQ(cache.parts(), 1);
  EXPECT_EQ(one_core_cache.parts(), 2);
  EXPECT_TRUE(cache.simpler_than(one_core_cache));
  EXPECT_TRUE(one_core.simpler_than(one_core_cache));
  EXPECT_FALSE(one_core.simpler_than(compact_cache));  // another pinning, not a subset
  EXPECT_FALSE(one_core_cache.simpler_than(cache));
  EXPECT_FALSE(cache.simpler_than(cache));
}

TEST(TuneCandidates, OutputFileNamesStayInTheDirectory) {
  EXPECT_EQ(tune::output_file_name("one-core+cache"), "one-core+cache.out");
  EXPECT_EQ(tune::output_file_name("plan:/a/b.json"), "plan__a_b.json.out");
  EXPECT_EQ(tune::output_file_name("cpus:../x"), "cpus_.._x.out");
}

// Memory policies are candidates only where there is more than one node with CPUs.
TEST(TuneCandidates, MemoryPoliciesOnlyOnMultiNodeMachines) {
  Topology multi = load("amd-4x-opteron6200-bulldozer-8numa.xml");
  ASSERT_GT(multi.numa_nodes().size(), 1u);
  auto set = tune::make_candidates("", multi, {"prog"}, false);
  ASSERT_TRUE(set) << set.error().message;
  ASSERT_NE(find(*set, "mem-local"), nullptr);
  EXPECT_EQ(find(*set, "mem-interleave")->options.memory, "interleave");
  EXPECT_TRUE(find(*set, "mem-local")->order.empty());
  // one-node may have been run as an identical candidate (one L3 per node on this machine).
  const tune::Candidate* node = find(*set, "one-node");
  for (const auto& c : set->list)
    if (std::find(c.same_as.begin(), c.same_as.end(), "one-node") != c.same_as.end()) node = &c;
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(CpuSet::from_vector(node->order),
            multi.numa_nodes().front().cpus & multi.allowed_cpus());

  Topology vm = load("this-vm-kvm-2vcpu-epyc.xml");
  auto one = tune::make_candidates("os,mem-local", vm, {"prog"}, false);
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_EQ(find(*one, "mem-local"), nullptr);
}
