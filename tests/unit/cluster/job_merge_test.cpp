// threadmap job's findings on synthetic records: each planted problem is found, exactly when
// planted, and a clean job has none.
#include "src/cluster/job_merge.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace threadmap;
using namespace threadmap::cluster;

namespace {

// A 4-CPU host: two cores of 2 PUs (0,1 and 2,3), two NUMA nodes (one per core).
LoadedRecord rank_record(int rank, int ranks, const char* share, std::vector<int> nodes) {
  LoadedRecord l;
  l.file = "host-a." + std::to_string(rank) + ".json";
  RankRecord& r = l.record;
  r.host = "host-a";
  r.rank = rank;
  r.ranks = ranks;
  r.launcher = "openmpi";
  r.share = *CpuSet::parse(share);
  r.memory_nodes = std::move(nodes);
  r.allowed = *CpuSet::parse("0-3");
  r.cores = {*CpuSet::parse("0-1"), *CpuSet::parse("2-3")};
  r.numa_nodes = {{0, *CpuSet::parse("0-1")}, {1, *CpuSet::parse("2-3")}};
  r.watch_json = "{}";
  return l;
}

void thread_on(LoadedRecord& l, int tid, std::vector<RecordSpan> spans, int migrations = 0) {
  l.threads.push_back({tid, "worker", migrations, std::move(spans)});
}

std::vector<std::string> ids(const JobReport& job) {
  std::vector<std::string> out;
  for (const JobFinding& f : job.findings) out.push_back(f.id);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<LoadedRecord> clean_job() {
  LoadedRecord a = rank_record(0, 2, "0-1", {0});
  thread_on(a, 10, {{0, 1, 0}});
  thread_on(a, 11, {{0, 1, 1}});
  LoadedRecord b = rank_record(1, 2, "2-3", {1});
  thread_on(b, 20, {{0, 1, 2}});
  thread_on(b, 21, {{0, 1, 3}});
  return {a, b};
}

}  // namespace

TEST(JobMerge, CleanJobHasNoFindings) {
  JobReport job = merge_job(clean_job());
  EXPECT_TRUE(job.findings.empty()) << job.findings.front().text;
  ASSERT_EQ(job.hosts.size(), 1u);
  EXPECT_DOUBLE_EQ(job.hosts[0].seconds.at({2, 1}), 1.0);
  EXPECT_EQ(job.hosts[0].ranks_seen, (std::vector<int>{0, 1}));
}

TEST(JobMerge, ThreadOutsideItsShareAndNode) {
  std::vector<LoadedRecord> records = clean_job();
  // Rank 0's second thread spends 0.5 s on CPU 2 (rank 1's share, NUMA node 1) next to rank 1.
  records[0].threads[1].spans = {{0, 0.5, 1}, {0.5, 1.0, 2}};
  JobReport job = merge_job(records);
  EXPECT_EQ(ids(job), (std::vector<std::string>{"left_numa", "left_share", "oversubscribed_core",
                                                "shared_core"}));
  for (const JobFinding& f : job.findings)
    if (f.id == "left_share") {
      EXPECT_EQ(f.rank, 0);
      EXPECT_DOUBLE_EQ(f.seconds, 0.5);
      EXPECT_NE(f.text.find("CPUs 2"), std::string::npos) << f.text;
    }
}

TEST(JobMerge, OverlappingSharesMissingRankUnusedCpus) {
  LoadedRecord a = rank_record(0, 3, "0-2", {0, 1});
  thread_on(a, 10, {{0, 1, 0}});
  LoadedRecord b = rank_record(1, 3, "2-3", {1});
  thread_on(b, 20, {{0, 1, 3}});
  JobReport job = merge_job({a, b});
  EXPECT_EQ(ids(job), (std::vector<std::string>{"missing_ranks", "share_overlap", "unused_cpus"}));
}

TEST(JobMerge, MigrationsFailedRanksAndMissingWatch) {
  std::vector<LoadedRecord> records = clean_job();
  records[0].threads[0].migrations = 50;  // 50 + 0 over 2 threads: above 10 per thread
  records[1].record.exit_status = 7;
  records[1].record.watch_json.clear();
  records[1].record.watch_error = "perf and procfs both refused";
  records[1].threads.clear();
  JobReport job = merge_job(records);
  // Rank 1's CPUs are not called unused: without a watch nothing says where it ran.
  EXPECT_EQ(ids(job), (std::vector<std::string>{"failed_rank", "migrations", "watch_failed"}));
}

TEST(JobMerge, RankEndedBeforeItsFirstSampleIsUnknownNotUnused) {
  std::vector<LoadedRecord> records = clean_job();
  records[1].threads.clear();  // watched, but it ended before the first sample
  JobReport job = merge_job(records);
  EXPECT_TRUE(job.findings.empty()) << job.findings.front().text;
  ASSERT_EQ(job.hosts.size(), 1u);
  EXPECT_EQ(job.hosts[0].unsampled, (std::vector<int>{1}));
  // Only the CPUs the unsampled rank could reach are unknown: with rank 1 confined to 2-3, a
  // CPU of rank 0's that none of its threads used is still a finding.
  records[1].record.allowed = *CpuSet::parse("2-3");
  records[0].threads.pop_back();
  EXPECT_EQ(ids(merge_job(records)), (std::vector<std::string>{"unused_cpus"}));
}

TEST(JobMerge, RecordsRoundTripThroughTheirFile) {
  RankRecord r = clean_job()[1].record;
  r.watch_json = R"({"schema":"threadmap.watch/1","threads":[{"tid":5,"name":"w","migrations":2,)"
                 R"("spans":[{"start_s":0.1,"end_s":0.3,"cpu":3}]}]})";
  auto back = parse_rank_record(rank_record_to_json(r), "x.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->record.share, r.share);
  EXPECT_EQ(back->record.memory_nodes, r.memory_nodes);
  EXPECT_EQ(back->record.cores.size(), 2u);
  ASSERT_EQ(back->threads.size(), 1u);
  EXPECT_EQ(back->threads[0].spans[0].cpu, 3);
  EXPECT_EQ(back->threads[0].migrations, 2);
}

TEST(JobMerge, BadRecordsAreRefusedWithTheFileName) {
  for (const char* text : {"", "[]", R"({"schema":"threadmap.watch/1"})",
                           R"({"schema":"threadmap.rank/1","host":"a","rank":"x"})",
                           R"({"schema":"threadmap.rank/1","host":"a","rank":2,"ranks":2,)"
                           R"("global_rank":-1,"exit_status":0,"share":"0","allowed":"0"})"}) {
    auto r = parse_rank_record(text, "bad.json");
    ASSERT_FALSE(r) << text;
    EXPECT_NE(r.error().message.find("bad.json"), std::string::npos) << r.error().message;
  }
}

// what a correct MPI job does must not be a finding.

TEST(JobMerge, StartUpWindowIsShownApartAndIsNoFinding) {
  std::vector<LoadedRecord> records = clean_job();
  // Rank 1's main thread (tid 20) sits on CPU 0 (rank 0's share) while MPI_Init binds it, then
  // comes back; its worker starts after that.
  records[1].pid = 20;
  records[1].threads[0].spans = {{0, 0.3, 0}, {0.3, 1.0, 2}};
  records[1].threads[1].spans = {{0.3, 1.0, 3}};
  JobReport job = merge_job(records);
  EXPECT_TRUE(job.findings.empty()) << job.findings.front().text;
  ASSERT_EQ(job.hosts[0].startup.count(1), 1u);
  EXPECT_DOUBLE_EQ(job.hosts[0].startup.at(1).outside_s, 0.3);
  EXPECT_DOUBLE_EQ(job.hosts[0].startup.at(1).end_s, 0.3);
}

TEST(JobMerge, LeavingTheShareAfterTheProgramRanIsStillAFinding) {
  std::vector<LoadedRecord> records = clean_job();
  // The worker starts at 0.1; the main thread leaves for CPU 0 at 0.3 and comes back at 0.6.
  records[1].pid = 20;
  records[1].threads[0].spans = {{0, 0.3, 2}, {0.3, 0.6, 0}, {0.6, 1.0, 2}};
  records[1].threads[1].spans = {{0.1, 1.0, 3}};
  JobReport job = merge_job(records);
  ASSERT_FALSE(job.findings.empty());
  bool left = false;
  for (const JobFinding& f : job.findings)
    if (f.id == "left_share") {
      left = true;
      EXPECT_NEAR(f.seconds, 0.3, 1e-9);
    }
  EXPECT_TRUE(left);
}

TEST(JobMerge, OnlyRunnableThreadsOversubscribe) {
  std::vector<LoadedRecord> records = clean_job();
  // Rank 0 (core 0-1, 2 PUs) has two threads running and three asleep on its CPUs.
  for (RecordThread& t : records[0].threads) t.spans[0].cpu_s = 0.9;
  for (int tid : {12, 13, 14}) thread_on(records[0], tid, {{0, 1, 0, 0.001}});
  JobReport job = merge_job(records);
  EXPECT_TRUE(job.findings.empty()) << job.findings.front().text;
  // One of the sleepers wakes up and runs: three runnable threads on two PUs.
  records[0].threads[2].spans[0].cpu_s = 0.5;
  job = merge_job(records);
  EXPECT_EQ(ids(job), (std::vector<std::string>{"oversubscribed_core"}));
}

TEST(JobMerge, ItsOwnJsonInTheDirectoryIsSkipped) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("tm-job-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const LoadedRecord& l : clean_job())
    std::ofstream(dir / record_file_name(l.record.host, l.record.rank))
        << rank_record_to_json(l.record);
  std::ofstream(dir / "job.json") << R"({"schema": "threadmap.job/1", "hosts": []})";
  auto job = load_job(dir.string());
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->records, 2);
  EXPECT_EQ(job->ignored.size(), 1u);
  for (const JobFinding& f : job->findings) EXPECT_NE(f.id, "unreadable") << f.text;
  // Any other file that is not a record still is one.
  std::ofstream(dir / "notes.json") << R"({"hello": 1})";
  job = load_job(dir.string());
  ASSERT_TRUE(job);
  EXPECT_EQ(std::count_if(job->findings.begin(), job->findings.end(),
                          [](const JobFinding& f) { return f.id == "unreadable"; }),
            1);
  std::filesystem::remove_all(dir);
}
