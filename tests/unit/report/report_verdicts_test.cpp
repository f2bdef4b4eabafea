// The report states and recommends only from clear verdicts: an unclear bench comparison is
// "no clear difference", "nothing to gain from placement here" replaces advice that only names
// every CPU, and the machine's state (busy, virtual) is said at the top of the page.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/render/report_html.hpp"
#include "src/render/report_html_util.hpp"
#include "src/render/report_json.hpp"
#include "src/report/report_advice.hpp"

namespace threadmap::report {
namespace {

// Overlapping (the loaded 2-vCPU VM) and clearly separated samples, in ms.
const std::vector<double> kNoisyBase{5.0, 1.2, 9.0, 4.8, 2.0, 3.1};
const std::vector<double> kNoisyOther{2.5, 6.0, 1.0, 2.6, 8.0, 3.0};
const std::vector<double> kSlow{5.0, 5.2, 4.9, 5.1, 5.3, 5.05};
const std::vector<double> kFast{1.3, 1.25, 1.35, 1.2, 1.3, 1.28};

Variant variant(const std::string& name, const std::string& baseline, std::vector<double> s) {
  Variant v;
  v.name = name;
  v.label = name;
  v.baseline = baseline;
  v.value = experiments::summarize_runs(std::move(s));
  return v;
}

BenchResult bench(const std::string& name, std::vector<Variant> variants,
                  bool higher_is_better = false) {
  BenchResult b;
  b.name = name;
  b.title = name;
  b.unit = higher_is_better ? "threads/s" : "ms";
  b.higher_is_better = higher_is_better;
  b.runs = 6;
  b.allowed_cpus = "0-1";
  b.variants = std::move(variants);
  experiments::compute_ratios(b);
  return b;
}

MachineReport two_vcpu_vm(bool placement_clear) {
  MachineReport r;
  auto topo = Topology::load_xml(std::string(THREADMAP_TEST_DATA) +
                                 "/topologies/this-vm-kvm-2vcpu-epyc.xml");
  EXPECT_TRUE(topo) << topo.error().message;
  if (topo) r.topology = *topo;
  r.usable_cpus = "0-1";
  r.latency.status = {false, "not measured in this test", 0};
  const std::vector<double>& pinned = placement_clear ? kFast : kNoisyOther;
  const std::vector<double>& base = placement_clear ? kSlow : kNoisyBase;
  r.benches.push_back(
      bench("contention", {variant("os", "", base), variant("one-core", "os", pinned),
                           variant("far-apart", "os", kNoisyOther)}));
  r.benches.push_back(
      bench("migrate", {variant("os", "", kNoisyBase), variant("pinned", "os", kNoisyOther),
                        variant("hopping", "os", kNoisyBase)}));
  r.bench_status.resize(r.benches.size());
  return r;
}

AdvicePart advise(const MachineReport& r) { return make_advice(r, CpuSet{0, 1}); }

TEST(ReportVerdicts, NoClearPlacementVerdictMeansNothingToGain) {
  MachineReport r = two_vcpu_vm(false);
  ASSERT_TRUE(r.topology);
  r.advice = advise(r);
  EXPECT_TRUE(r.advice.nothing_to_gain);
  EXPECT_EQ(r.advice.placement_summary.rfind("Nothing to gain from placement here", 0), 0u)
      << r.advice.placement_summary;
  EXPECT_TRUE(r.advice.placement_findings.empty());
  // No recommendation that only says "use CPUs 0,1", which is every CPU.
  for (const Recommendation& rec : r.advice.recommendations)
    EXPECT_NE(rec.cpus, "0,1") << rec.title;
  const std::string page = render::report_html(r, {});
  EXPECT_NE(page.find("Nothing to gain from placement here"), std::string::npos);
  // At a glance the sentence is plain; its statistics are one click away, under it.
  const std::size_t glance = page.find("<section id=\"glance\">");
  const std::string at_glance = page.substr(glance, page.find("</section>", glance) - glance);
  EXPECT_NE(at_glance.find("<details><summary>statistics</summary>rank test and median intervals"),
            std::string::npos)
      << at_glance;
  EXPECT_EQ(at_glance.find("(rank test"), std::string::npos) << at_glance;
  // How this was measured gives the rule's real minimum of rounds (5), not a stale 3.
  EXPECT_NE(page.find("after at least 5, the fewest that can give a clear verdict"),
            std::string::npos);
  EXPECT_EQ(page.find("x faster"), std::string::npos);
  EXPECT_EQ(page.find("x slower"), std::string::npos);
  EXPECT_EQ(render::report_json(r, "")["advice"]["placement"]["nothing_to_gain"], true);
}

TEST(ReportVerdicts, AClearPlacementVerdictIsStatedAndKeepsTheRecommendations) {
  MachineReport r = two_vcpu_vm(true);
  ASSERT_TRUE(r.topology);
  r.advice = advise(r);
  EXPECT_FALSE(r.advice.nothing_to_gain);
  ASSERT_EQ(r.advice.placement_findings.size(), 1u);
  EXPECT_NE(r.advice.placement_findings[0].find("one-core"), std::string::npos);
  EXPECT_NE(r.advice.placement_findings[0].find("x faster"), std::string::npos);
  EXPECT_FALSE(r.advice.recommendations.empty());
}

TEST(ReportVerdicts, TheThreadCacheIsRecommendedOnlyFromAClearVerdict) {
  for (bool clear : {false, true}) {
    MachineReport r = two_vcpu_vm(false);
    // Rates: the cache's median 1.5x the baseline's either way.
    const std::vector<double> base = clear ? std::vector<double>{100, 101, 99, 100, 102, 98}
                                           : std::vector<double>{100, 20, 400, 90, 30, 300};
    const std::vector<double> cache = clear ? std::vector<double>{150, 151, 149, 150, 152, 148}
                                            : std::vector<double>{150, 25, 420, 140, 35, 500};
    r.benches.push_back(bench(
        "spawn", {variant("no-cache-1", "", base), variant("cache-1", "no-cache-1", cache)}, true));
    r.bench_status.resize(r.benches.size());
    r.advice = advise(r);
    bool cache_rec = false;
    for (const Recommendation& rec : r.advice.recommendations)
      cache_rec = cache_rec || rec.title.find("short-lived threads") != std::string::npos;
    EXPECT_EQ(cache_rec, clear) << (clear ? "clear" : "unclear");
  }
}

TEST(ReportVerdicts, AnUnclearSmtVerdictGivesNoSmtAdvice) {
  MachineReport r = two_vcpu_vm(false);
  r.benches.push_back(
      bench("smt", {variant("accumulate-alone", "", kNoisyBase),
                    variant("accumulate-smt-siblings", "accumulate-alone", kNoisyOther)}));
  r.bench_status.resize(r.benches.size());
  r.advice = advise(r);
  bool said = false;
  for (const std::string& g : r.advice.smt_guidance) {
    if (g.rfind("Measured:", 0) != 0) continue;
    said = true;
    EXPECT_NE(g.find("no clear difference"), std::string::npos) << g;
    EXPECT_EQ(g.find("keep threads"), std::string::npos) << g;
    EXPECT_EQ(g.find("can share a core."), std::string::npos) << g;
  }
  EXPECT_TRUE(said);
}

// The 2-vCPU VM has no SMT: its smt bench's "two cores" row is explained before the numbers
// (a red "1.38x slower" alone read as an SMT effect).
TEST(ReportVerdicts, TheSmtBenchSaysWhatItMeansWithoutSmt) {
  MachineReport r = two_vcpu_vm(false);
  r.benches.push_back(bench("smt", {variant("accumulate-alone", "", kFast),
                                    variant("accumulate-two-cores", "accumulate-alone", kSlow)}));
  r.bench_status.resize(r.benches.size());
  r.advice = advise(r);
  ASSERT_FALSE(r.advice.has_smt);
  const std::string page = render::report_html(r, {});
  EXPECT_NE(page.find("is not an SMT effect"), std::string::npos);
}

TEST(ReportVerdicts, OnlyClearVerdictsAreColoured) {
  const BenchResult noisy =
      bench("contention", {variant("os", "", kNoisyBase), variant("pinned", "os", kNoisyOther)});
  const std::string bars = render::html::bench_bars_svg(noisy);
  EXPECT_EQ(bars.find("#2a9d5b"), std::string::npos) << bars;  // green
  EXPECT_EQ(bars.find("#d1603d"), std::string::npos) << bars;  // red
  const BenchResult clear =
      bench("contention", {variant("os", "", kSlow), variant("pinned", "os", kFast)});
  EXPECT_NE(render::html::bench_bars_svg(clear).find("#2a9d5b"), std::string::npos);
}

TEST(ReportVerdicts, TheMachineStateIsAtTheTopOfThePageAndInTheJson) {
  MachineReport r = two_vcpu_vm(false);
  r.advice = advise(r);
  MachineState busy;
  busy.verdict = MachineVerdict::busy;
  busy.summary = "busy: others used 97% of CPUs 0-1 just before, 4 runnable tasks on 2 CPUs";
  busy.guest = true;
  busy.hypervisor = "KVM";
  r.machine_state = busy;
  r.benches[0].machine_state = busy;
  const std::string page = render::report_html(r, {});
  const std::size_t glance = page.find("<section id=\"glance\">");
  const std::size_t line = page.find("Measured on a busy machine: others used 97%");
  ASSERT_NE(line, std::string::npos);
  EXPECT_LT(glance, line);
  EXPECT_LT(line, page.find("<ul class=\"glance\">"));
  EXPECT_NE(page.find("virtual machine (KVM)"), std::string::npos);
  // And beside the bench that ran on it.
  EXPECT_NE(page.find("measured on a busy machine: others used 97%"), std::string::npos);
  nlohmann::json j = render::report_json(r, "");
  EXPECT_EQ(j["machine_state"]["verdict"], "busy");
  EXPECT_EQ(j["machine_state"]["hypervisor"], "KVM");
  EXPECT_EQ(j["latency"].contains("stability"), false);  // latency unavailable here
}

// A pair sharing one CPU measured clearly faster (2.7x on the 2-vCPU VM): the advice for two
// threads that talk follows the measurement, not the model's two CPUs; and advice that would
// repeat the same commands (pair and compute threads on CPUs 0,1) is given once.
TEST(ReportVerdicts, TheAdviceFollowsAClearMeasurementOnThePage) {
  MachineReport r = two_vcpu_vm(true);
  BenchResult& contention = r.benches[0];
  contention.variants[1].threads = {{"pair A thread 1", CpuSet{0}},
                                    {"pair A thread 2", CpuSet{0}},
                                    {"pair B thread 1", CpuSet{1}},
                                    {"pair B thread 2", CpuSet{1}}};
  experiments::compute_ratios(contention);
  ASSERT_TRUE(contention.variants[1].verdict_clear);
  r.advice = advise(r);
  ASSERT_FALSE(r.advice.recommendations.empty());
  const Recommendation& pair = r.advice.recommendations.front();
  EXPECT_EQ(pair.cpus, "0") << pair.why;
  EXPECT_NE(pair.why.find("sharing CPU 0"), std::string::npos) << pair.why;
  EXPECT_NE(pair.commands[0].command.find("--cpus 0 --policy compact"), std::string::npos);
  EXPECT_NE(pair.commands[2].command.find("OMP_NUM_THREADS=2"), std::string::npos);
  // No two recommendations with the same CPUs (the same commands twice).
  for (std::size_t i = 0; i < r.advice.recommendations.size(); ++i)
    for (std::size_t j = i + 1; j < r.advice.recommendations.size(); ++j)
      EXPECT_NE(r.advice.recommendations[i].cpus, r.advice.recommendations[j].cpus);
}

TEST(ReportVerdicts, RecommendationsWithTheSameCpusAreGivenOnce) {
  MachineReport r = two_vcpu_vm(true);  // one-core has no threads here: the model's pair stays
  r.advice = advise(r);
  int on_both = 0;
  for (const Recommendation& rec : r.advice.recommendations) on_both += rec.cpus == "0,1";
  EXPECT_LE(on_both, 1);
}

// A clear difference measured while others used the CPUs is no ground for advice.
TEST(ReportVerdicts, NoAdviceRestsOnAVerdictMeasuredWhileBusy) {
  MachineReport r = two_vcpu_vm(true);
  MachineState busy;
  busy.verdict = MachineVerdict::busy;
  busy.summary = "busy: others used 90% of CPUs 0-1 just before";
  const std::vector<double> base{100, 101, 99, 100, 102, 98}, cache{150, 151, 149, 150, 152, 148};
  r.benches.push_back(bench(
      "spawn", {variant("no-cache-1", "", base), variant("cache-1", "no-cache-1", cache)}, true));
  r.bench_status.resize(r.benches.size());
  for (BenchResult& b : r.benches) {
    b.machine_state = busy;
    experiments::compute_ratios(b);
  }
  ASSERT_TRUE(r.benches[0].variants[1].measured_while_busy);
  r.advice = advise(r);
  EXPECT_TRUE(r.advice.placement_findings.empty());
  EXPECT_NE(r.advice.placement_summary.find("while others used these CPUs"), std::string::npos)
      << r.advice.placement_summary;
  for (const Recommendation& rec : r.advice.recommendations)
    EXPECT_EQ(rec.title.find("short-lived threads"), std::string::npos) << rec.title;
}

}  // namespace
}  // namespace threadmap::report
