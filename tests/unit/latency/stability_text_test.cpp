// A pair that did not hold still (this VM's pair reads ~28 ns in one pass and 100+ ns in the
// next) must not be printed as a fact: the provenance line (terminal and report) and the analysis
// say so, with the between-pass spread beside the within-run interval.
#include <gtest/gtest.h>

#include "src/latency/domains.hpp"
#include "src/latency/matrix_files.hpp"
#include "src/render/latency_text.hpp"

namespace threadmap {
namespace {

latency::Measurement bimodal_run() {
  latency::Measurement m;
  m.matrix.cpus = {0, 1};
  m.matrix.one_way_ns = {0, 28.5, 28.5, 0};
  m.method = latency::Method::cas;
  latency::PairStats p;
  p.cpu_a = 0;
  p.cpu_b = 1;
  p.samples = 16;
  p.median_ns = 28.5;
  p.ci_low_ns = 28.4;
  p.ci_high_ns = 28.6;
  p.converged = true;
  p.rechecked = true;
  p.recheck_median_ns = 104.0;
  p.recheck_ci_low_ns = 103.8;
  p.recheck_ci_high_ns = 104.2;
  p.unstable = true;
  p.multimodal = true;
  p.modes_ns = {28.0, 103.0};
  p.reported_ns = 28.5;
  m.pairs.push_back(p);
  return m;
}

TEST(StabilityText, UnstablePairsAreFlaggedWhereTheNumberIsShown) {
  latency::Measurement m = bimodal_run();
  const std::string prov = render::latency_provenance(m.matrix, &m);
  EXPECT_NE(prov.find("WARNING: 1 of 1 pairs did not hold still"), std::string::npos) << prov;
  EXPECT_NE(prov.find("between-pass spread"), std::string::npos) << prov;

  latency::DomainAnalysis d = latency::analyse_domains(m.matrix);
  render::LatencyTextInput in;
  in.matrix = &m.matrix;
  in.domains = &d;
  in.measurement = &m;
  const std::string text = render::latency_analysis_text(in);
  EXPECT_NE(text.find("within-run 95% CI"), std::string::npos) << text;
  EXPECT_NE(text.find("between-pass"), std::string::npos) << text;
  // The terminal prints the provenance and then the analysis: the warning is said once.
  const std::string both = prov + text;
  EXPECT_EQ(both.find("WARNING"), both.rfind("WARNING")) << both;
  // Prose is filled to 100 columns (the pairs table may be wider).
  std::size_t at = 0;
  for (std::size_t end; (end = prov.find('\n', at)) != std::string::npos; at = end + 1)
    EXPECT_LE(end - at, 100u) << prov.substr(at, end - at);
  // 28.5 vs 104: |a-b|/mean = 114%.
  EXPECT_NE(text.find("114.0%"), std::string::npos) << text;
}

// A matrix that did not hold still gets no domains, but how it was measured and its notes
// (quick mode, which pairs moved) are still printed: they are how the user judges it.
TEST(StabilityText, AnUnstableMatrixStillShowsItsMeasurementAndNotes) {
  latency::Measurement m = bimodal_run();
  m.matrix.stability = latency::judge_stability(1, 1);
  ASSERT_TRUE(m.matrix.stability.unstable());
  m.notes.push_back("quick mode: measured 1 pair");
  latency::DomainAnalysis d = latency::analyse_domains(m.matrix);
  ASSERT_FALSE(d.not_inferred.empty());
  render::LatencyTextInput in;
  in.matrix = &m.matrix;
  in.domains = &d;
  in.measurement = &m;
  const std::string text = render::latency_analysis_text(in);
  EXPECT_NE(text.find("none inferred"), std::string::npos) << text;
  EXPECT_NE(text.find("between-pass"), std::string::npos) << text;
  EXPECT_NE(text.find("quick mode: measured 1 pair"), std::string::npos) << text;
}

TEST(StabilityText, SteadyPairsGetNoWarning) {
  latency::Measurement m = bimodal_run();
  auto& p = m.pairs[0];
  p.recheck_median_ns = 28.7;
  p.unstable = p.multimodal = false;
  p.modes_ns.clear();
  const std::string prov = render::latency_provenance(m.matrix, &m);
  EXPECT_EQ(prov.find("WARNING"), std::string::npos) << prov;
}

// A matrix measured while others used the CPUs held still at values that include their load:
// the provenance (terminal and report) and the stability line say so, the JSON carries it, and
// loading that JSON (or a file that recorded only a busy machine_state) brings it back.
TEST(StabilityText, ABusyMachineIsMarkedWhereverTheMatrixIsShownAndCarriedInItsJson) {
  latency::Measurement m = bimodal_run();
  m.pairs[0].unstable = m.pairs[0].multimodal = false;
  m.pairs[0].modes_ns.clear();
  m.matrix.stability = latency::judge_stability(0, 1);
  m.matrix.measured_busy = "others used 63% of CPUs 0-1 just before";
  const std::string prov = render::latency_provenance(m.matrix, &m);
  EXPECT_NE(prov.find("WARNING: measured while the machine was busy (others used 63%"),
            std::string::npos)
      << prov;
  latency::DomainAnalysis d = latency::analyse_domains(m.matrix);
  render::LatencyTextInput in;
  in.matrix = &m.matrix;
  in.domains = &d;
  const std::string text = render::latency_analysis_text(in);
  EXPECT_NE(text.find("stability: stable"), std::string::npos) << text;
  EXPECT_NE(text.find("stable values of a busy machine"), std::string::npos) << text;

  auto back = latency::parse_matrix_text(latency::latency_json(m.matrix, d, &m).dump(), "m.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->measured_busy, m.matrix.measured_busy);
  EXPECT_NE(render::latency_provenance(*back, nullptr)
                .find("WARNING: measured while the machine "
                      "was busy"),
            std::string::npos);
  // A file from before the mark: its machine_state said busy.
  auto doc = latency::latency_json(m.matrix, d, &m);
  doc.erase("measured_while_busy");
  doc["machine_state"] = {{"verdict", "busy"}, {"summary", "busy: 14 runnable tasks on 2 CPUs"}};
  auto old = latency::parse_matrix_text(doc.dump(), "old.json");
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_EQ(old->measured_busy, "14 runnable tasks on 2 CPUs");
  // A quiet one is not marked.
  doc["machine_state"]["verdict"] = "quiet";
  EXPECT_EQ(latency::parse_matrix_text(doc.dump(), "quiet.json")->measured_busy, "");
}

// The passes gave 103.3 and 90.9 ns; the matrix holds the lower. The warning's example gives the
// matrix's value first, so the number the text reports is the number in the matrix.
TEST(StabilityText, TheExampleReportsTheMatrixValue) {
  latency::Measurement m = bimodal_run();
  m.pairs[0].median_ns = 103.3;
  m.pairs[0].recheck_median_ns = 90.9;
  m.pairs[0].reported_ns = 90.9;
  m.pairs[0].modes_ns.clear();
  m.pairs[0].multimodal = false;
  m.matrix.one_way_ns = {0, 90.9, 90.9, 0};
  std::string prov = render::latency_provenance(m.matrix, &m);
  // Filled to 100 columns for the terminal: read as one line.
  for (std::size_t at; (at = prov.find("\n  ")) != std::string::npos;) prov.replace(at, 3, " ");
  EXPECT_NE(prov.find("CPUs 0-1: 90.9 ns in the matrix (passes 103.3 and 90.9 ns)"),
            std::string::npos)
      << prov;
}

}  // namespace
}  // namespace threadmap
