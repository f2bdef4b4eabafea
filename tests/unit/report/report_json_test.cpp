// The machine report's JSON round trip: what `report --out` writes (render/report_json), fleet's
// reader (fleet/report_reader) reads host for host, and a document that is not a report is
// refused naming the file.
#include "src/render/report_json.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "src/fleet/host_record.hpp"
#include "src/latency/matrix.hpp"

namespace threadmap::report {
namespace {

MachineReport recorded_vm() {
  MachineReport r;
  auto topo = Topology::load_xml(std::string(THREADMAP_TEST_DATA) +
                                 "/topologies/this-vm-kvm-2vcpu-epyc.xml");
  EXPECT_TRUE(topo) << topo.error().message;
  if (topo) r.topology = *topo;
  r.usable_cpus = "0-1";
  r.latency.status = {false, "not measured in this test", 0};
  BenchResult b;
  b.name = "contention";
  b.title = "contention";
  b.unit = "ms";
  b.runs = 3;
  b.allowed_cpus = "0-1";
  Variant os;
  os.name = os.label = "os";
  os.value = experiments::summarize_runs({4.0, 5.0, 6.5});
  Variant pinned;
  pinned.name = pinned.label = "one-core";
  pinned.baseline = "os";
  pinned.value = experiments::summarize_runs({1.5, 1.25, 1.75});
  b.variants = {os, pinned};
  experiments::compute_ratios(b);
  r.benches.push_back(b);
  r.bench_status.resize(1);
  return r;
}

TEST(ReportJson, FleetReadsWhatReportWrites) {
  MachineReport r = recorded_vm();
  ASSERT_TRUE(r.topology);
  auto back = fleet::parse_host_record(render::report_json(r, "").dump(1), "vm/report.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  const TopologyCounts counts = r.topology->counts();
  EXPECT_EQ(back->file, "vm/report.json");
  EXPECT_EQ(back->cpu_model, r.topology->cpu_model());
  EXPECT_EQ(back->packages, counts.packages);
  EXPECT_EQ(back->numa_nodes, counts.numa_nodes);
  EXPECT_EQ(back->cores, counts.cores);
  EXPECT_EQ(back->pus, counts.pus);
  EXPECT_EQ(back->allowed_cpus, r.topology->allowed_cpus().to_list());
  EXPECT_EQ(back->complete_cpus, r.topology->complete_cpus().to_list());
  ASSERT_EQ(back->bench_median.count("contention/os"), 1u);
  EXPECT_DOUBLE_EQ(back->bench_median.at("contention/os"), 5.0);
  EXPECT_DOUBLE_EQ(back->bench_median.at("contention/one-core"), 1.5);
  EXPECT_EQ(back->bench_unit.at("contention/os"), "ms");
  EXPECT_FALSE(back->bench_higher_is_better.at("contention/os"));
  EXPECT_TRUE(back->latency_row_ns.empty());  // latency not measured: unknown, not zero
}

TEST(ReportJson, FleetReadsTheLatencyRowsAndHowTheyWereMeasured) {
  MachineReport r = recorded_vm();
  auto m = latency::load_matrix(std::string(THREADMAP_TEST_DATA) + "/latency/Apple_M1_Pro.csv");
  ASSERT_TRUE(m) << m.error().message;
  r.latency.status = {true, "", 1.0};
  r.latency.matrix = *m;
  r.latency.matrix.stability = latency::judge_stability(5, 20);
  r.latency.stability_state = r.latency.matrix.stability.state;
  MachineState state;
  state.verdict = MachineVerdict::busy;
  state.summary = "busy: others used 40% of CPUs 0-1 just before";
  r.machine_state = state;
  auto back = fleet::parse_host_record(render::report_json(r, "").dump(), "m1/report.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  // Each CPU's row: the median of its one-way cells to the other CPUs, from the file's values.
  const latency::Matrix& mat = r.latency.matrix;
  ASSERT_EQ(back->latency_row_ns.size(), mat.size());
  for (std::size_t i = 0; i < mat.size(); ++i) {
    std::vector<double> row;
    for (std::size_t k = 0; k < mat.size(); ++k)
      if (k != i) row.push_back(mat.at(i, k));
    std::sort(row.begin(), row.end());
    ASSERT_EQ(row.size() % 2, 1u);  // an odd count: the median is one cell
    // The latency JSON keeps 0.001 ns (latency/matrix_files).
    EXPECT_NEAR(back->latency_row_ns.at(mat.cpus[i]), row[row.size() / 2], 0.0005) << "CPU " << i;
  }
  EXPECT_EQ(back->stability, "unstable");
  EXPECT_EQ(back->stability_reason, r.latency.matrix.stability.reason);
  EXPECT_EQ(back->machine_verdict, MachineVerdict::busy);
  EXPECT_EQ(back->machine_summary, state.summary);
}

TEST(ReportJson, ADocumentThatIsNotAReportIsRefusedNamingTheFile) {
  nlohmann::json doc = render::report_json(recorded_vm(), "");
  doc["schema"] = "threadmap.bench/1";
  auto wrong = fleet::parse_host_record(doc.dump(), "hostA.json");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().code, std::errc::invalid_argument);
  EXPECT_NE(wrong.error().message.find("hostA.json"), std::string::npos);
  EXPECT_NE(wrong.error().message.find("threadmap.report/1"), std::string::npos)
      << wrong.error().message;
  auto cut = fleet::parse_host_record("{\"schema\": \"threadmap.report/1\", ", "hostB.json");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("hostB.json"), std::string::npos) << cut.error().message;
}

}  // namespace
}  // namespace threadmap::report
