// latency::analyse, numbering lies, topology comparison and display order on published matrices
// and recorded topologies.
#include "src/latency/analysis.hpp"

#include <gtest/gtest.h>

#include "src/latency/compare.hpp"
#include "src/latency/numbering.hpp"
#include "src/latency/ordering.hpp"
#include "src/render/latency_heatmap_text.hpp"
#include "src/render/latency_text.hpp"

using namespace threadmap;

namespace {

const std::string kData = THREADMAP_TEST_DATA;

latency::Matrix load(const std::string& file) {
  auto m = latency::load_matrix(kData + "/latency/" + file);
  EXPECT_TRUE(m) << m.error().message;
  return m ? *m : latency::Matrix{};
}

TEST(Numbering, SmtAtHalfMakesTheNextNumberExpensive) {
  // On the 5950X, CPU i's SMT sibling is i+16 (~7 ns) while CPU i+1 is another core (~16+ ns).
  auto m = load("AMD_Ryzen_9_5950X_3.40_GHz.csv");
  auto lies = latency::analyse_numbering(m, 5);
  ASSERT_EQ(lies.cpus.size(), 32u);
  EXPECT_EQ(lies.cpus[3].nearest, std::vector<int>{19});
  EXPECT_EQ(lies.cpus[3].next_cpu, 4);
  EXPECT_GT(lies.cpus[3].cost_ratio, 1.5);
  ASSERT_EQ(lies.worst.size(), 5u);
  for (std::size_t k = 1; k < lies.worst.size(); ++k) {
    EXPECT_GE(lies.worst[k - 1].cost_ratio, lies.worst[k].cost_ratio);
  }
  // The worst case crosses the CCD boundary: CPU 7 -> 8 or 15 -> 16 or 23 -> 24.
  EXPECT_GT(lies.worst[0].cost_ratio, 5);
}

TEST(Numbering, AdjacentSiblingsMakeNumberingHonest) {
  auto m = load("Intel_Core_i9-9900K_CPU_3.60_GHz.csv");
  auto lies = latency::analyse_numbering(m);
  EXPECT_EQ(lies.cpus[0].nearest, std::vector<int>{1});
  EXPECT_DOUBLE_EQ(lies.cpus[0].cost_ratio, 1.0);
}

TEST(Compare, TwoCpuGuestAgreesWithItsTopology) {
  // Our development VM: 2 cores (no SMT) under one L3. A flat 2-CPU matrix shows no SMT and one
  // domain: both agree with what hwloc reports.
  auto topo = Topology::load_xml(kData + "/topologies/this-vm-kvm-2vcpu-epyc.xml");
  ASSERT_TRUE(topo) << topo.error().message;
  latency::Matrix m = latency::make_matrix(topo->complete_cpus().to_vector());
  ASSERT_EQ(m.size(), 2u);
  m.at(0, 1) = m.at(1, 0) = 30;
  auto d = latency::analyse_domains(m);
  auto cmp = latency::compare_with_topology(d, *topo);
  ASSERT_GE(cmp.lines.size(), 2u);
  EXPECT_EQ(cmp.lines[0].hwloc_level, "cores");
  EXPECT_EQ(cmp.lines[0].relation, latency::Relation::same);
  EXPECT_EQ(cmp.lines[1].hwloc_level, "L3 domains");
  EXPECT_TRUE(cmp.smt_agrees);
  EXPECT_TRUE(cmp.domains_agree);
  EXPECT_NE(cmp.lines[1].sentence.find("matches"), std::string::npos) << cmp.lines[1].sentence;
}

TEST(Compare, MatrixOfAnotherMachineIsSaidToBeSo) {
  auto topo = Topology::load_xml(kData + "/topologies/this-vm-kvm-2vcpu-epyc.xml");
  ASSERT_TRUE(topo) << topo.error().message;
  auto m = load("Apple_M1_Pro.csv");  // 8 CPUs, the VM has 2
  auto cmp = latency::compare_with_topology(latency::analyse_domains(m), *topo);
  EXPECT_FALSE(cmp.smt_agrees);
  ASSERT_FALSE(cmp.lines.empty());
  EXPECT_NE(cmp.lines[0].sentence.find("describes another machine"), std::string::npos)
      << cmp.lines[0].sentence;
}

TEST(Compare, RealEpycTopologyAgainstMatrixShapedLikeIt) {
  auto topo = Topology::load_xml(kData + "/topologies/amd-2x-epyc9654-zen4.xml");
  ASSERT_TRUE(topo) << topo.error().message;
  // Build a matrix from the topology's own structure: 5 ns SMT, 20 ns L3, 100 ns package, 200 ns
  // across; analysis must then agree with hwloc on cores and L3.
  auto cpus = topo->complete_cpus().to_vector();
  latency::Matrix m = latency::make_matrix(cpus);
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      const PuPlace* a = topo->pu(m.cpus[i]);
      const PuPlace* b = topo->pu(m.cpus[j]);
      double v = a->core == b->core         ? 5
                 : a->l3 == b->l3           ? 20
                 : a->package == b->package ? 100
                                            : 200;
      m.at(i, j) = m.at(j, i) = v;
    }
  }
  auto d = latency::analyse_domains(m);
  auto cmp = latency::compare_with_topology(d, *topo);
  EXPECT_TRUE(d.smt_found);
  EXPECT_TRUE(cmp.smt_agrees);
  EXPECT_TRUE(cmp.domains_agree);
  EXPECT_EQ(d.domains.size(), topo->groups(Level::l3).size());
  bool packages = false;
  for (const auto& line : cmp.lines) {
    packages =
        packages || (line.hwloc_level == "packages" && line.relation == latency::Relation::same);
  }
  EXPECT_TRUE(packages);

  // Now pretend the guest was told every core is its own L3: the domains must disagree.
  latency::Matrix flat = m;
  for (std::size_t i = 0; i < flat.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (flat.at(i, j) == 20) flat.at(i, j) = flat.at(j, i) = 100;
    }
  }
  auto d2 = latency::analyse_domains(flat);
  auto cmp2 = latency::compare_with_topology(d2, *topo);
  EXPECT_FALSE(cmp2.domains_agree);
  EXPECT_NE(cmp2.lines[1].sentence.find("do not match the reported L3"), std::string::npos)
      << cmp2.lines[1].sentence;
}

TEST(Ordering, InferredDomainsPutSmtSiblingsNextToEachOther) {
  auto m = load("AMD_EPYC_7773X.csv");
  auto d = latency::analyse_domains(m);
  auto order = latency::topology_order(m, d, nullptr);
  ASSERT_EQ(order.size(), 128u);
  EXPECT_EQ(m.cpus[order[0]], 0);
  EXPECT_EQ(m.cpus[order[1]], 64);  // CPU 0's SMT sibling
  EXPECT_EQ(m.cpus[order[2]], 1);
  // The first 16 positions are the first CCX.
  CpuSet first;
  for (int k = 0; k < 16; ++k) first.add(m.cpus[order[static_cast<std::size_t>(k)]]);
  EXPECT_EQ(first, d.domains[0]);
  auto numeric = latency::numeric_order(m);
  EXPECT_EQ(m.cpus[numeric[1]], 1);
}

// latency::analyse is what `threadmap latency` and the report both call: on a published matrix
// it finds the same domains, SMT-aware order and numbering as the pieces it is made of, and
// compares with a topology only when given one.
TEST(Analyse, OneCallGivesDomainsNumberingAndOrder) {
  auto m = load("AMD_EPYC_7773X.csv");
  latency::Analysis a = latency::analyse(m, nullptr);
  EXPECT_FALSE(a.comparison);
  ASSERT_EQ(a.order.size(), 128u);
  EXPECT_EQ(m.cpus[a.order[1]], 64);  // CPU 0's SMT sibling, as the recorded latencies say
  EXPECT_EQ(a.domains.domains, latency::analyse_domains(m).domains);
  EXPECT_EQ(a.numbering.cpus.size(), m.size());
  latency::Analysis numeric = latency::analyse(m, nullptr, latency::RowOrder::numeric);
  EXPECT_EQ(m.cpus[numeric.order[1]], 1);
}

TEST(Analyse, ComparesWithTheTopologyItIsGiven) {
  auto topo = Topology::load_xml(kData + "/topologies/this-vm-kvm-2vcpu-epyc.xml");
  ASSERT_TRUE(topo) << topo.error().message;
  latency::Matrix m = latency::make_matrix(topo->complete_cpus().to_vector());
  m.at(0, 1) = m.at(1, 0) = 30;
  latency::Analysis a = latency::analyse(m, &*topo);
  ASSERT_TRUE(a.comparison);
  EXPECT_TRUE(a.comparison->domains_agree);
  EXPECT_EQ(a.order.size(), 2u);
}

// The widest line of `text` in terminal columns: ANSI color sequences take none.
std::size_t widest_line(const std::string& text) {
  std::size_t widest = 0, column = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b') {
      i = text.find('m', i);
      if (i == std::string::npos) break;
      continue;
    }
    if (text[i] == '\n') {
      column = 0;
      continue;
    }
    widest = std::max(widest, ++column);
  }
  return widest;
}

TEST(TextHeatmap, FiveHundredTwelveCpusFitATerminal) {
  auto m = load("Dual_AMD_EPYC_9754_128-Core_Processor_by-fwyzard.csv");
  auto d = latency::analyse_domains(m);
  auto order = latency::topology_order(m, d, nullptr);
  render::TextHeatmapOptions opt;
  opt.color = false;
  std::string text = render::latency_heatmap_text(m, order, opt);
  // 512 CPUs in 100 columns: 32 cells of 16x16 CPUs, and where to see every pair.
  EXPECT_NE(text.find("median of a 16x16 block"), std::string::npos) << text;
  EXPECT_NE(text.find("--png, --svg or --csv"), std::string::npos) << text;
  EXPECT_LE(widest_line(text), 100u) << text;
}

// Every size, colored or not, fits 100 columns (a 64-CPU matrix was 132 wide, legends
// included); up to 48 CPUs with 2-digit numbers every CPU keeps its own cell.
TEST(TextHeatmap, EverySizeFitsOneHundredColumns) {
  for (int n : {2, 3, 16, 17, 47, 48, 64, 65, 100, 128, 257, 1024}) {
    std::vector<int> cpus;
    for (int c = 0; c < n; ++c) cpus.push_back(c);
    latency::Matrix m = latency::make_matrix(cpus);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i != j)
          m.at(static_cast<std::size_t>(i), static_cast<std::size_t>(j)) =
              i / 8 == j / 8 ? 20.0 + i % 3 : 90.0 + (i + j) % 7;
    for (bool color : {false, true}) {
      render::TextHeatmapOptions opt;
      opt.color = color;
      const std::string text = render::latency_heatmap_text(m, latency::numeric_order(m), opt);
      EXPECT_LE(widest_line(text), 100u) << n << " CPUs, color " << color << "\n" << text;
      EXPECT_EQ(text.find("block of CPUs") == std::string::npos, n <= 48) << n << "\n" << text;
    }
  }
}

TEST(TextHeatmap, ColorCellsAndLegendInNs) {
  latency::Matrix m = latency::make_matrix({0, 1, 2});
  m.at(0, 1) = m.at(1, 0) = 10;
  m.at(0, 2) = m.at(2, 0) = 100;
  m.at(1, 2) = m.at(2, 1) = 100;
  render::TextHeatmapOptions opt;
  std::string colored = render::latency_heatmap_text(m, latency::numeric_order(m), opt);
  EXPECT_NE(colored.find("\x1b[48;2;"), std::string::npos);
  EXPECT_NE(colored.find("10.0"), std::string::npos);
  EXPECT_NE(colored.find("100.0"), std::string::npos);
  opt.color = false;
  std::string plain = render::latency_heatmap_text(m, latency::numeric_order(m), opt);
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
}

TEST(AnalysisText, NamesDomainsAndNumbering) {
  auto m = load("AMD_Ryzen_9_7950X.csv");
  auto d = latency::analyse_domains(m);
  auto lies = latency::analyse_numbering(m);
  render::LatencyTextInput in;
  in.matrix = &m;
  in.domains = &d;
  in.numbering = &lies;
  std::string text = render::latency_analysis_text(in);
  EXPECT_NE(text.find("[0-15]  [16-31]"), std::string::npos) << text;
  EXPECT_NE(text.find("numbering lies"), std::string::npos);
}

}  // namespace

namespace {

TEST(TextHeatmap, SmallMatricesShowValuesOnAPipe) {
  latency::Matrix m = latency::make_matrix({0, 1, 2});
  m.at(0, 1) = m.at(1, 0) = 12.25;
  m.at(0, 2) = m.at(2, 0) = 130;
  m.at(1, 2) = m.at(2, 1) = 131;
  render::TextHeatmapOptions opt;
  opt.color = false;
  std::string text = render::latency_heatmap_text(m, latency::numeric_order(m), opt);
  EXPECT_NE(text.find("12.2"), std::string::npos) << text;
  EXPECT_NE(text.find(" 130"), std::string::npos) << text;
  EXPECT_NE(text.find("one-way latency, ns"), std::string::npos);
  opt.max_numeric = 0;  // force color blocks / ramp
  std::string ramp = render::latency_heatmap_text(m, latency::numeric_order(m), opt);
  // Row of CPU 0: diagonal blank, 12.25 ns at the low end of the ramp, 130 ns at the high end.
  EXPECT_NE(ramp.find("\n0   ..@@\n"), std::string::npos) << ramp;
}

}  // namespace
