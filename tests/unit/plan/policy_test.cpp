// The one CPU policy engine on recorded machines (tests/data/topologies), and the promise it
// exists for: for the same CPUs, policy and thread count, `threadmap run` pins the threads
// where `threadmap plan --policy` places them.
#include "src/plan/policy.hpp"

#include <gtest/gtest.h>

#include <set>

#include "src/apply/placement.hpp"
#include "src/plan/planner.hpp"
#include "src/plan/spec.hpp"

namespace threadmap::plan {
namespace {

Topology load(const std::string& file) {
  auto topo = Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/" + file);
  EXPECT_TRUE(topo.ok()) << file;
  return std::move(topo.value());
}

TEST(Policy, ParsesNamesAndRejectsOthers) {
  EXPECT_EQ(*parse_policy("compact"), Policy::compact);
  EXPECT_EQ(*parse_policy("scatter"), Policy::scatter);
  EXPECT_EQ(*parse_policy("round-robin"), Policy::round_robin);
  EXPECT_FALSE(parse_policy("spread").ok());  // the planner's own, not a CPU order
  EXPECT_NE(parse_policy("dense").error().message.find("'dense'"), std::string::npos);
}

TEST(Policy, EveryPolicyUsesEachCpuOnce) {
  Topology topo = load("amd-2x-epyc9654-zen4.xml");
  for (Policy p : {Policy::compact, Policy::scatter, Policy::round_robin}) {
    auto order = order_cpus(topo, topo.complete_cpus(), p);
    EXPECT_EQ(order.size(), topo.complete_cpus().count());
    EXPECT_EQ(std::set<int>(order.begin(), order.end()).size(), order.size());
  }
}

TEST(Policy, ScatterAlternatesPackagesThenSpreadsOverL3s) {
  Topology topo = load("amd-2x-epyc7763-zen3.xml");
  auto order = order_cpus(topo, topo.complete_cpus(), Policy::scatter);
  ASSERT_GE(order.size(), 32u);
  // The first threads land on different packages in turn ...
  for (size_t k = 0; k + 1 < 16; ++k)
    EXPECT_NE(topo.pu(order[k])->package, topo.pu(order[k + 1])->package) << k;
  // ... and the first 16 cover all 16 L3 domains (8 per package) before any L3 is reused.
  std::set<int> l3s;
  for (size_t k = 0; k < 16; ++k) l3s.insert(topo.pu(order[k])->l3);
  EXPECT_EQ(l3s.size(), 16u);
}

TEST(Policy, ScatterPutsSmtSiblingsLast) {
  Topology topo = load("intel-2x-xeonmax9460-sapphirerapids.xml");
  auto order = order_cpus(topo, topo.complete_cpus(), Policy::scatter);
  std::set<int> cores;
  size_t cores_total = static_cast<size_t>(topo.counts().cores);
  for (size_t k = 0; k < cores_total; ++k) cores.insert(topo.pu(order[k])->core);
  EXPECT_EQ(cores.size(), cores_total);  // one PU per core before any sibling
}

TEST(Policy, CompactFillsCoresAndCachesInOrder) {
  Topology topo = load("intel-2x-xeonmax9460-sapphirerapids.xml");
  auto order = order_cpus(topo, topo.complete_cpus(), Policy::compact);
  // SMT siblings are adjacent: threads 0 and 1 share a core.
  EXPECT_EQ(topo.pu(order[0])->core, topo.pu(order[1])->core);
  EXPECT_EQ(topo.pu(order[0])->package, topo.pu(order[order.size() / 2 - 1])->package);
}

TEST(Policy, RoundRobinIsAscendingOsNumbers) {
  Topology topo = load("intel-2x-xeonmax9460-sapphirerapids.xml");
  auto order = order_cpus(topo, CpuSet{5, 1, 3}, Policy::round_robin);
  EXPECT_EQ(order, (std::vector<int>{1, 3, 5}));
}

TEST(Policy, NamesRoundTrip) {
  for (Policy p : {Policy::compact, Policy::scatter, Policy::round_robin})
    EXPECT_EQ(*parse_policy(policy_name(p)), p);
}

TEST(Policy, ThreadsCycleOverTheOrder) {
  EXPECT_EQ(cpus_for_threads({4, 5, 6}, 5), (std::vector<int>{4, 5, 6, 4, 5}));
  EXPECT_TRUE(cpus_for_threads({}, 3).empty());
}

TEST(Policy, QuickPolicyIsTheCpuPolicyOrSpread) {
  EXPECT_EQ(*parse_quick_policy("round-robin"), QuickPolicy::round_robin);
  EXPECT_EQ(cpu_policy(*parse_quick_policy("scatter")), Policy::scatter);
  EXPECT_EQ(cpu_policy(*parse_quick_policy("spread")), std::nullopt);
  EXPECT_FALSE(parse_quick_policy("dense").ok());
}

// The CPU `threadmap run --cpus all --policy P` pins each thread to: the main thread takes the
// pin rules' main CPU, the k-th created thread the k-th entry of their cycle.
std::vector<int> run_cpus(const Topology& topo, Policy policy, std::size_t threads) {
  auto all = topo.resolve("all");
  EXPECT_TRUE(all.ok());
  const apply::PinRules rules = apply::rules_from_order(plan::order_cpus(topo, *all, policy));
  std::vector<int> cpus{rules.main_cpus ? rules.main_cpus->first() : -1};
  for (std::size_t k = 0; k + 1 < threads; ++k)
    cpus.push_back(rules.cycle[k % rules.cycle.size()].first());
  return cpus;
}

// The CPU `threadmap plan --threads N --policy P --topology FILE` assigns each thread.
std::vector<int> plan_cpus(const Topology& topo, QuickPolicy policy, int threads) {
  auto spec = threads_spec(threads, policy);
  EXPECT_TRUE(spec.ok());
  spec->oversubscribe = true;
  PlanInputs inputs;
  inputs.topology = &topo;
  inputs.placement_policy = policy;
  auto plan = make_plan(*spec, inputs);
  EXPECT_TRUE(plan.ok()) << (plan ? "" : plan.error().message);
  std::vector<int> cpus;
  if (!plan) return cpus;
  for (const PlannedThread& t : plan->assignments) cpus.push_back(t.cpus.first());
  return cpus;
}

TEST(Policy, RunPinsTheCpusPlanAssigns) {
  // Two sockets with SMT, two sockets with many L3s, two hybrids, and this 2-CPU VM.
  for (const char* file : {"intel-2x-xeonmax9460-sapphirerapids.xml", "amd-2x-epyc7763-zen3.xml",
                           "intel-i7-1370p-raptorlake-hybrid.xml",
                           "amd-ryzen-ai9-hx370-zen5-hybrid.xml", "this-vm-kvm-2vcpu-epyc.xml"}) {
    const Topology topo = load(file);
    const int cpus = static_cast<int>(topo.resolve("all")->count());
    for (QuickPolicy quick :
         {QuickPolicy::compact, QuickPolicy::scatter, QuickPolicy::round_robin}) {
      const Policy policy = *cpu_policy(quick);
      for (int threads : {1, 2, 3, 8, cpus, cpus + 3}) {
        if (quick == QuickPolicy::compact && threads > 2048) continue;  // spec limit
        SCOPED_TRACE(std::string(file) + " " + policy_name(policy) + " x" +
                     std::to_string(threads));
        const std::vector<int> planned = plan_cpus(topo, quick, threads);
        EXPECT_EQ(planned, run_cpus(topo, policy, static_cast<std::size_t>(threads)));
        EXPECT_EQ(planned.size(), static_cast<std::size_t>(threads));
      }
    }
  }
}

// Scatter on two sockets with SMT: the first threads alternate sockets and no two share a core,
// so a difference between the two commands could not hide behind a symmetric machine.
TEST(Policy, ScatterPlanAlternatesSocketsOnTwoSocketSmt) {
  const Topology topo = load("intel-2x-xeonmax9460-sapphirerapids.xml");
  const std::vector<int> planned = plan_cpus(topo, QuickPolicy::scatter, 8);
  std::set<int> cores;
  for (std::size_t k = 0; k < planned.size(); ++k) {
    cores.insert(topo.pu(planned[k])->core);
    if (k > 0) {
      EXPECT_NE(topo.pu(planned[k])->package, topo.pu(planned[k - 1])->package) << k;
    }
  }
  EXPECT_EQ(cores.size(), planned.size());
}

}  // namespace
}  // namespace threadmap::plan
