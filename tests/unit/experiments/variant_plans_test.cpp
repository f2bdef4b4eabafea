// Where contention and smt put their threads, on every recorded machine: what a user with an
// SMT-2 EPYC, a hybrid laptop or a 24-socket UV2000 would get, not just this test machine.
#include "src/experiments/variant_plans.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/unit/common/recorded_data.hpp"

namespace threadmap::experiments {
namespace {

using test_data::topology_files;

bool has_smt(const Topology& topo, const CpuSet& usable) {
  for (const CpuSet& core : topo.groups(Level::core))
    if ((core & usable).count() >= 2) return true;
  return false;
}

const Variant& find(const VariantPlan& plan, const std::string& name) {
  for (const Variant& v : plan.variants)
    if (v.name == name) return v;
  throw std::runtime_error("no variant " + name);
}

TEST(VariantPlans, ContentionPutsEachPairOnOneCoreAndSplitsThemFarApart) {
  for (const std::string& file : topology_files()) {
    SCOPED_TRACE(file);
    auto topo = Topology::load_xml(file);
    ASSERT_TRUE(topo);
    const CpuSet usable = topo->allowed_cpus();
    VariantPlan plan = plan_contention(*topo, usable);
    ASSERT_EQ(plan.variants.size(), 3u);
    const auto& one = find(plan, "one-core").threads;
    ASSERT_EQ(one.size(), 4u);
    for (const auto& t : one) ASSERT_EQ(t.cpus.count(), 1u);
    const int a1 = one[0].cpus.first(), a2 = one[1].cpus.first();
    const int b1 = one[2].cpus.first(), b2 = one[3].cpus.first();
    EXPECT_TRUE(topo->smt_siblings(a1).contains(a2));
    EXPECT_TRUE(topo->smt_siblings(b1).contains(b2));
    if (topo->groups(Level::core).size() >= 2) {
      EXPECT_FALSE(topo->smt_siblings(a1).contains(b1)) << "the pairs share a core";
    }
    if (has_smt(*topo, usable)) {
      EXPECT_NE(a1, a2) << "with SMT, a pair uses both hardware threads of its core";
      EXPECT_NE(b1, b2);
    }
    const auto& far = find(plan, "far-apart").threads;
    EXPECT_NE(far[0].cpus, far[1].cpus);
    if (topo->counts().packages > 1) {
      EXPECT_EQ(topo->shared_level(far[0].cpus.first(), far[1].cpus.first()), Level::machine);
      EXPECT_EQ(topo->shared_level(far[2].cpus.first(), far[3].cpus.first()), Level::machine);
    }
    for (const Variant& v : plan.variants)
      for (const auto& t : v.threads) EXPECT_TRUE(t.cpus.is_subset_of(usable));
    for (const auto& t : find(plan, "os").threads) EXPECT_TRUE(t.cpus.empty());
  }
}

TEST(VariantPlans, SmtRunsSiblingRowsExactlyWhereThereIsSmt) {
  for (const std::string& file : topology_files()) {
    SCOPED_TRACE(file);
    auto topo = Topology::load_xml(file);
    ASSERT_TRUE(topo);
    const CpuSet usable = topo->allowed_cpus();
    VariantPlan plan = plan_smt(*topo, usable);
    ASSERT_EQ(plan.variants.size(), 6u);
    for (const char* w : {"accumulate", "sin"}) {
      const Variant& siblings = find(plan, std::string(w) + "-smt-siblings");
      EXPECT_EQ(siblings.available, has_smt(*topo, usable));
      if (siblings.available) {
        const int a = siblings.threads[0].cpus.first(), b = siblings.threads[1].cpus.first();
        EXPECT_NE(a, b);
        EXPECT_TRUE(topo->smt_siblings(a).contains(b));
      } else {
        EXPECT_FALSE(siblings.unavailable_reason.empty());
      }
      const Variant& cores = find(plan, std::string(w) + "-two-cores");
      ASSERT_TRUE(cores.available);
      EXPECT_FALSE(topo->smt_siblings(cores.threads[0].cpus.first())
                       .contains(cores.threads[1].cpus.first()));
      EXPECT_EQ(find(plan, std::string(w) + "-alone").threads.size(), 1u);
      EXPECT_EQ(cores.baseline, std::string(w) + "-alone");
    }
  }
}

TEST(VariantPlans, OneUsableCpuLeavesNothingToSplit) {
  auto topo =
      Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/amd-2x-epyc9654-zen4.xml");
  ASSERT_TRUE(topo);
  VariantPlan plan = plan_contention(*topo, CpuSet{5});
  EXPECT_FALSE(find(plan, "far-apart").available);
  for (const auto& t : find(plan, "one-core").threads) EXPECT_EQ(t.cpus, CpuSet{5});
  EXPECT_FALSE(plan.notes.empty());
}

}  // namespace
}  // namespace threadmap::experiments
