// Every experiment in quick mode on this machine: it runs, each available variant has one
// sample per run and a ratio against an available baseline, and what cannot run here says why.
#include <gtest/gtest.h>

#include "src/experiments/experiments.hpp"

namespace threadmap::experiments {
namespace {

class Benches : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = Topology::load_this_machine();
    ASSERT_TRUE(loaded) << loaded.error().message;
    topo_ = std::make_unique<Topology>(*loaded);
    auto usable = usable_cpus(*topo_);
    ASSERT_TRUE(usable);
    usable_ = *usable;
    options_.quick = true;
    options_.runs = 2;
  }

  // The checks every bench result must pass.
  void expect_well_formed(const BenchResult& r) {
    EXPECT_TRUE(r.available) << r.unavailable_reason;
    EXPECT_FALSE(r.unit.empty());
    EXPECT_FALSE(r.how_measured.empty());
    EXPECT_FALSE(r.published.empty());
    // 2 planned runs; more may be added while a verdict is unclear, within the budget.
    EXPECT_EQ(r.rounds.planned, 2);
    EXPECT_EQ(r.runs, 2 + r.rounds.added);
    EXPECT_LE(r.runs, r.rounds.cap);
    EXPECT_TRUE(r.quick);
    ASSERT_FALSE(r.variants.empty());
    EXPECT_TRUE(r.variants[0].baseline.empty()) << "the first variant is a baseline";
    for (const Variant& v : r.variants) {
      SCOPED_TRACE(v.name);
      EXPECT_FALSE(v.label.empty());
      if (!v.available) {
        EXPECT_FALSE(v.unavailable_reason.empty());
        continue;
      }
      EXPECT_FALSE(v.placement.empty());
      ASSERT_EQ(v.value.samples.size(), static_cast<std::size_t>(r.runs));
      EXPECT_FALSE(v.verdict.empty());
      for (double s : v.value.samples) {
        EXPECT_GT(s, 0);
      }
      EXPECT_LE(v.value.min, v.value.median);
      EXPECT_LE(v.value.median, v.value.max);
      // A reference (compared with nothing) has no ratio.
      if (v.verdict != "reference") {
        EXPECT_GT(v.ratio_to_baseline, 0);
      }
      for (const ThreadPlacement& t : v.threads)
        EXPECT_TRUE(t.cpus.is_subset_of(usable_)) << t.cpus.to_list();
    }
  }

  std::unique_ptr<Topology> topo_;
  CpuSet usable_;
  BenchOptions options_;
};

TEST_F(Benches, ContentionComparesOsPlacementWithOneCorePerPairAndFarApart) {
  auto r = run_contention(*topo_, options_);
  ASSERT_TRUE(r) << r.error().message;
  expect_well_formed(*r);
  ASSERT_EQ(r->variants.size(), 3u);
  EXPECT_EQ(r->variants[0].name, "os");
  EXPECT_EQ(r->variants[1].name, "one-core");
  EXPECT_EQ(r->variants[2].name, "far-apart");
  ASSERT_EQ(r->variants[1].threads.size(), 4u);
  for (const ThreadPlacement& t : r->variants[0].threads) {
    EXPECT_TRUE(t.cpus.empty());
  }
  // Both threads of a pair share one core in "one-core".
  const auto& one = r->variants[1].threads;
  EXPECT_EQ(topo_->smt_siblings(one[0].cpus.first()), topo_->smt_siblings(one[1].cpus.first()));
  EXPECT_EQ(topo_->smt_siblings(one[2].cpus.first()), topo_->smt_siblings(one[3].cpus.first()));
  if (usable_.count() >= 2) {
    const auto& far = r->variants[2].threads;
    EXPECT_NE(far[0].cpus, far[1].cpus);
  }
}

TEST_F(Benches, PingpongMeasuresPairsAndSaysWhenTheyCoincide) {
  if (usable_.count() < 2) GTEST_SKIP() << "needs two usable CPUs";
  PingpongOptions opt;
  static_cast<BenchOptions&>(opt) = options_;
  auto r = run_pingpong(*topo_, opt);
  ASSERT_TRUE(r) << r.error().message;
  expect_well_formed(*r);
  EXPECT_EQ(r->variants[0].name, "sequential");
  EXPECT_TRUE(r->higher_is_better);
  if (usable_.count() == 2) {
    EXPECT_EQ(r->variants.size(), 1u) << "one pair only: best and worst are the same pair";
    bool said_so = false;
    for (const auto& n : r->notes)
      said_so = said_so || n.find("only one pair") != std::string::npos;
    EXPECT_TRUE(said_so);
  }
}

TEST_F(Benches, PingpongChoosesBestAndWorstFromGivenLatencies) {
  if (usable_.count() < 3) GTEST_SKIP() << "needs three usable CPUs for distinct pairs";
  const std::vector<int> c = usable_.to_vector();
  PingpongOptions opt;
  static_cast<BenchOptions&>(opt) = options_;
  opt.latency_source = "test";
  opt.latencies = {{c[0], c[1], 50}, {c[0], c[2], 10}, {c[1], c[2], 90}};
  auto r = run_pingpong(*topo_, opt);
  ASSERT_TRUE(r) << r.error().message;
  std::map<std::string, CpuSet> first_cpu;
  for (const Variant& v : r->variants) first_cpu[v.name] = v.threads[0].cpus | v.threads[1].cpus;
  EXPECT_EQ(first_cpu["best"], (CpuSet{c[0], c[2]}));
  EXPECT_EQ(first_cpu["worst"], (CpuSet{c[1], c[2]}));
}

TEST_F(Benches, PingpongRejectsAPairOutsideTheUsableCpus) {
  PingpongOptions opt;
  static_cast<BenchOptions&>(opt) = options_;
  opt.pair = CpuPair{usable_.first(), usable_.last() + 64};
  auto r = run_pingpong(*topo_, opt);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("bad CPU pair"), std::string::npos) << r.error().message;
}

TEST_F(Benches, SmtRunsBothWorkloadsAndSkipsSiblingsWithoutSmt) {
  auto r = run_smt(*topo_, options_);
  ASSERT_TRUE(r) << r.error().message;
  expect_well_formed(*r);
  ASSERT_EQ(r->variants.size(), 6u);
  const bool has_smt = smt_sibling_pair(*topo_, usable_).has_value();
  for (const Variant& v : r->variants) {
    if (v.name.ends_with("-smt-siblings")) {
      EXPECT_EQ(v.available, has_smt);
      if (!has_smt) {
        EXPECT_NE(v.unavailable_reason.find("SMT"), std::string::npos);
      }
    }
  }
}

TEST_F(Benches, MigrateCountsMigrationsAndHoppingMigratesMore) {
  auto r = run_migrate(*topo_, options_);
  ASSERT_TRUE(r) << r.error().message;
  expect_well_formed(*r);
  ASSERT_EQ(r->variants.size(), 3u);
  for (const Variant& v : r->variants) {
    if (!v.available) continue;
    ASSERT_EQ(v.counters.size(), 4u);
    for (const Counter& c : v.counters) {
      EXPECT_FALSE(c.supported ? c.how.empty() : c.reason.empty());
    }
  }
  const Variant& stay = r->variants[1];
  const Variant& hop = r->variants[2];
  if (!hop.available) GTEST_SKIP() << hop.unavailable_reason;
  if (!hop.counters[1].supported)
    GTEST_SKIP() << "no migration counter: " << hop.counters[1].reason;
  // 20 rounds per thread, each starting with a move to another CPU.
  EXPECT_GE(hop.counters[1].median, 10.0 * static_cast<double>(hop.threads.size()));
  EXPECT_LT(stay.counters[1].median, hop.counters[1].median);
}

TEST_F(Benches, SpawnIsUnavailableWithTheReasonWhenItsProgramIsMissing) {
  SpawnOptions opt;
  static_cast<BenchOptions&>(opt) = options_;
  opt.spawn_binary = "/nonexistent/bin/threadmap-spawn";
  opt.cache_library = "/nonexistent/lib/libthreadmap-cache.so";
  auto r = run_spawn(*topo_, opt);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->available);
  EXPECT_NE(r->unavailable_reason.find("/nonexistent/bin/threadmap-spawn"), std::string::npos);
}

TEST_F(Benches, ZeroRunsIsRejected) {
  BenchOptions none = options_;
  none.runs = 0;
  auto r = run_contention(*topo_, none);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("bad run count 0"), std::string::npos);
}

TEST_F(Benches, ATopologyFileCannotBeBenchmarked) {
  auto xml =
      Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/amd-2x-epyc7763-zen3.xml");
  ASSERT_TRUE(xml);
  auto r = run_contention(*xml, options_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("amd-2x-epyc7763-zen3.xml"), std::string::npos);
}

}  // namespace
}  // namespace threadmap::experiments
