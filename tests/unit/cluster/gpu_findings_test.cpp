// `job` findings for ranks run with --gpus, on records made by hand: a correct job has none;
// each planted fault gives its finding with the evidence.
#include "src/cluster/gpu_findings.hpp"

#include <gtest/gtest.h>

#include "src/cluster/job_merge.hpp"

namespace threadmap::cluster {
namespace {

RecordGpu gpu(int index, const std::string& bus, int node, const std::string& cpus) {
  return {bus, index, "H100", "", node, *CpuSet::parse_list(cpus)};
}

// A watch document with pages per node (bytes) at the end.
std::string watch_with_pages(std::vector<std::pair<int, double>> nodes) {
  std::string list;
  for (auto [node, bytes] : nodes)
    list += (list.empty() ? "" : ",") + std::string("{\"node\":") + std::to_string(node) +
            ",\"pages\":1,\"bytes\":" + std::to_string(static_cast<long long>(bytes)) + "}";
  return "{\"schema\":\"threadmap.watch/1\",\"pid\":100,\"numa_pages\":{\"source\":\"x\","
         "\"start\":{\"at_s\":0,\"nodes\":[]},\"end\":{\"at_s\":1,\"nodes\":[" +
         list + "]}},\"threads\":[]}";
}

LoadedRecord record(int rank, int ranks, std::vector<RecordGpu> gpus, const std::string& share,
                    std::vector<RecordSpan> spans, std::string watch) {
  LoadedRecord l;
  l.file = "r" + std::to_string(rank) + ".json";
  l.pid = 100 + rank;
  RankRecord& r = l.record;
  r.host = "gpu1";
  r.rank = rank;
  r.ranks = ranks;
  r.launcher = "openmpi";
  r.share = *CpuSet::parse_list(share);
  r.allowed = *CpuSet::parse_list("0-7");
  r.numa_nodes = {{0, *CpuSet::parse_list("0-3")}, {1, *CpuSet::parse_list("4-7")}};
  r.gpus = std::move(gpus);
  r.host_gpus = {gpu(0, "0000:18:00.0", 0, "0-3"), gpu(1, "0000:86:00.0", 1, "4-7")};
  r.memory_nodes = {r.gpus.empty() ? 0 : r.gpus[0].numa_node};
  r.watch_json = std::move(watch);
  RecordThread t;
  t.tid = l.pid;
  t.spans = std::move(spans);
  l.threads = {t};
  return l;
}

std::vector<std::string> ids(const JobReport& job) {
  std::vector<std::string> out;
  for (const JobFinding& f : job.findings) out.push_back(f.id);
  return out;
}

const JobFinding* find(const JobReport& job, const std::string& id) {
  for (const JobFinding& f : job.findings)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(GpuFindings, ACorrectJobHasNone) {
  const double mib = 1 << 20;
  JobReport job = merge_job({
      record(0, 2, {gpu(0, "0000:18:00.0", 0, "0-3")}, "0-3",
             {{0, 1, 0, 0.9}, {1, 2, 1, 0.9}, {2, 3, 2, 0.9}, {3, 4, 3, 0.9}},
             watch_with_pages({{0, 500 * mib}, {1, 8 * mib}})),  // 8 MiB of shared libraries
      record(1, 2, {gpu(1, "0000:86:00.0", 1, "4-7")}, "4-7",
             {{0, 1, 4, 0.9}, {1, 2, 5, 0.9}, {2, 3, 6, 0.9}, {3, 4, 7, 0.9}},
             watch_with_pages({{1, 500 * mib}})),
  });
  for (const std::string& id : ids(job)) EXPECT_EQ(id.rfind("gpu_", 0), std::string::npos) << id;
  ASSERT_EQ(job.hosts.size(), 1u);
  EXPECT_EQ(job.hosts[0].gpus.at(1).at(0).bus_id, "0000:86:00.0");
  EXPECT_EQ(job.hosts[0].page_bytes.at(0).at(1), 8 * mib);  // the evidence `job` shows
}

TEST(GpuFindings, EachFaultIsFound) {
  const double mib = 1 << 20;
  // Rank 0 runs on node 1's CPUs and has its pages there; rank 1 drives the same GPU; GPU 1
  // has no rank.
  JobReport job = merge_job({
      record(0, 2, {gpu(0, "0000:18:00.0", 0, "0-3")}, "0-3", {{0, 1, 0, 0.9}, {1, 3, 5, 1.8}},
             watch_with_pages({{0, 100 * mib}, {1, 900 * mib}})),
      record(1, 2, {gpu(0, "0000:18:00.0", 0, "0-3")}, "4-7", {{0, 1, 4, 0.9}},
             watch_with_pages({{0, 10 * mib}})),
  });
  const JobFinding* cpus = find(job, "gpu_cpus");
  ASSERT_NE(cpus, nullptr) << ::testing::PrintToString(ids(job));
  EXPECT_EQ(cpus->rank, 0);
  EXPECT_NE(cpus->text.find("CPUs 5, not local to its GPU 0 (0000:18:00.0)"), std::string::npos)
      << cpus->text;
  const JobFinding* pages = find(job, "gpu_pages");
  ASSERT_NE(pages, nullptr);
  EXPECT_NE(pages->text.find("900 MiB (90% of its pages) on NUMA node(s) 1"), std::string::npos)
      << pages->text;
  const JobFinding* shared = find(job, "gpu_shared");
  ASSERT_NE(shared, nullptr);
  EXPECT_NE(shared->text.find("ranks 0,1 all drive the GPU at 0000:18:00.0"), std::string::npos);
  const JobFinding* idle = find(job, "gpu_idle");
  ASSERT_NE(idle, nullptr);
  EXPECT_NE(idle->text.find("GPU 1 (0000:86:00.0)"), std::string::npos) << idle->text;
}

TEST(GpuFindings, IdleGpusWaitForEveryRank) {
  // Rank 1's record is missing: it may drive GPU 1, so no gpu_idle (missing_ranks says why).
  JobReport job = merge_job({record(0, 2, {gpu(0, "0000:18:00.0", 0, "0-3")}, "0-3",
                                    {{0, 1, 0, 0.9}}, watch_with_pages({}))});
  EXPECT_EQ(find(job, "gpu_idle"), nullptr);
  EXPECT_NE(find(job, "missing_ranks"), nullptr);
}

TEST(GpuFindings, PagesAreReadFromTheWatchDocument) {
  auto bytes = record_page_bytes(watch_with_pages({{0, 4096}, {3, 8192}}));
  EXPECT_EQ(bytes.size(), 2u);
  EXPECT_EQ(bytes[3], 8192);
  EXPECT_TRUE(record_page_bytes("{\"numa_pages\":\"not read: no NUMA\"}").empty());
  EXPECT_TRUE(record_page_bytes("not json").empty());
}

TEST(GpuFindings, RanksOutnumberingTheGpusShareThemByDesign) {
  // Three ranks on a two-GPU host (run --ranks shares GPUs then): ranks 0 and 1 on GPU 0.
  JobReport job = merge_job({
      record(0, 3, {gpu(0, "0000:18:00.0", 0, "0-3")}, "0-1", {{0, 1, 0, 0.9}},
             watch_with_pages({})),
      record(1, 3, {gpu(0, "0000:18:00.0", 0, "0-3")}, "2-3", {{0, 1, 2, 0.9}},
             watch_with_pages({})),
      record(2, 3, {gpu(1, "0000:86:00.0", 1, "4-7")}, "4-7", {{0, 1, 4, 0.9}},
             watch_with_pages({})),
  });
  const JobFinding* shared = find(job, "gpu_shared");
  ASSERT_NE(shared, nullptr);
  EXPECT_NE(shared->text.find("(3 ranks on this host's 2 GPUs: shared by design"),
            std::string::npos)
      << shared->text;
}

}  // namespace
}  // namespace threadmap::cluster
