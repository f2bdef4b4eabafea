#include "src/cluster/job_merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "src/cluster/gpu_findings.hpp"
#include "src/core/json_text.hpp"
#include "src/core/text.hpp"
#include "src/os/files.hpp"

namespace threadmap::cluster {

bool runnable(const RecordSpan& s, const JobRules& rules) {
  const double len = s.end_s - s.start_s;
  return s.cpu_s < 0 || (len > 0 && s.cpu_s >= rules.runnable_share * len);
}

bool starved(const RecordSpan& s, const JobRules& rules) {
  const double len = s.end_s - s.start_s;
  return !runnable(s, rules) && s.wait_s >= 0 && len > 0 && s.wait_s >= rules.runnable_share * len;
}

namespace {

// A thread's spans as (start, end, cpu), for overlap sums.
struct Placed {
  int rank;
  double start, end;
  int cpu;
};

double overlap(const Placed& a, const Placed& b) {
  return std::max(0.0, std::min(a.end, b.end) - std::max(a.start, b.start));
}

// The start-up window of one rank (see StartupWindow): ends at the first of (a) the start of
// the first runnable span of a thread that appeared after the watch's first sample (the
// program's own thread: MPI's service threads come up inside MPI_Init and sleep), (b) the
// main thread's first span inside the share after one outside it (the library restored the
// binding). Neither: no window.
std::optional<StartupWindow> startup_window(const LoadedRecord& loaded, const JobRules& rules) {
  double first = 1e300;
  for (const RecordThread& t : loaded.threads)
    if (!t.spans.empty()) first = std::min(first, t.spans.front().start_s);
  if (first == 1e300) return std::nullopt;
  const RankRecord& r = loaded.record;
  double end = 1e300;
  std::string until;
  for (const RecordThread& t : loaded.threads) {
    if (t.spans.empty() || t.spans.front().start_s <= first || t.tid == loaded.pid) continue;
    for (const RecordSpan& s : t.spans)
      if (runnable(s, rules)) {
        if (s.start_s < end) {
          end = s.start_s;
          until = "the program's first own thread ran";
        }
        break;
      }
  }
  const RecordThread* main = nullptr;
  for (const RecordThread& t : loaded.threads)
    if (t.tid == loaded.pid) main = &t;
  if (!main && !loaded.threads.empty() && loaded.pid == 0) main = &loaded.threads.front();
  if (main) {
    bool was_outside = false;
    for (const RecordSpan& s : main->spans) {
      if (!r.share.contains(s.cpu)) {
        was_outside = true;
      } else if (was_outside) {
        if (s.start_s < end) {
          end = s.start_s;
          until = "the main thread came back into its share";
        }
        break;
      }
    }
  }
  if (end == 1e300 || end <= first) return std::nullopt;
  StartupWindow w;
  w.start_s = first;
  w.end_s = end;
  w.until = until;
  return w;
}

const LoadedRecord* find_rank(const std::vector<const LoadedRecord*>& records, int rank) {
  for (const LoadedRecord* r : records)
    if (r->record.rank == rank) return r;
  return nullptr;
}

// Findings about one host: each carries the host's name.
struct HostFindings {
  const std::string& host;
  JobReport& report;
  void add(const std::string& id, int rank, double seconds, std::string text) {
    report.findings.push_back({id, host, rank, seconds, std::move(text)});
  }
};

// Where one rank's threads spent their time, after its start-up window (the launcher's part,
// kept apart in `startup` so it never counts against the rank).
struct RankTime {
  std::optional<StartupWindow> window;
  StartupWindow startup;  ///< the window with the time its threads spent outside the share
  bool activity_known = true;
  int migrations = 0;
  double outside_s = 0, off_node_s = 0;
  CpuSet outside_cpus;
};

// CPUs of the NUMA nodes the rank's memory was bound to: running elsewhere reads remote memory.
CpuSet memory_local_cpus(const RankRecord& r) {
  CpuSet local_cpus;
  for (const RecordNumaNode& n : r.numa_nodes)
    if (std::find(r.memory_nodes.begin(), r.memory_nodes.end(), n.os_index) != r.memory_nodes.end())
      local_cpus |= n.cpus;
  return local_cpus;
}

// Walks one rank's sampled spans: adds its thread-seconds per CPU to the host view, its runnable
// spans to `placed` (for the per-core checks) and sums the time outside its share and node.
RankTime rank_time(const LoadedRecord& loaded, const JobRules& rules, JobHost& view,
                   std::vector<Placed>& placed) {
  const RankRecord& r = loaded.record;
  RankTime t;
  t.window = startup_window(loaded, rules);
  const double startup_end = t.window ? t.window->end_s : -1e300;
  t.startup = t.window.value_or(StartupWindow{});
  const CpuSet local_cpus = memory_local_cpus(r);
  for (const RecordThread& thread : loaded.threads) {
    t.migrations += thread.migrations;
    for (const RecordSpan& s : thread.spans) {
      const double len = std::max(0.0, s.end_s - s.start_s);
      view.seconds[{s.cpu, r.rank}] += len;
      if (s.cpu_s < 0) t.activity_known = false;
      // The part inside the start-up window is the launcher's: shown apart.
      const double begin = std::max(s.start_s, std::min(s.end_s, startup_end));
      if (t.window && !r.share.contains(s.cpu) && begin > s.start_s) {
        t.startup.outside_s += begin - s.start_s;
        t.startup.outside_cpus.add(s.cpu);
      }
      const double after = std::max(0.0, s.end_s - begin);
      if (after <= 0) continue;
      if (runnable(s, rules)) placed.push_back({r.rank, begin, s.end_s, s.cpu});
      if (!r.share.contains(s.cpu)) {
        t.outside_s += after;
        t.outside_cpus.add(s.cpu);
      }
      if (r.numa_nodes.size() > 1 && !local_cpus.empty() && !local_cpus.contains(s.cpu))
        t.off_node_s += after;
    }
  }
  return t;
}

// A rank's own findings from its time: off its share, off its memory's node, moved too often.
void rank_time_findings(const LoadedRecord& loaded, const RankTime& t, const JobRules& rules,
                        HostFindings& findings) {
  const RankRecord& r = loaded.record;
  if (t.outside_s > rules.min_seconds)
    findings.add("left_share", r.rank, t.outside_s,
                 fmt::format("rank {}'s threads were on CPUs {} outside its share {} for {} "
                             "(thread-seconds, sampled)",
                             r.rank, t.outside_cpus.to_list(), r.share.to_list(),
                             duration_text(t.outside_s)));
  if (t.off_node_s > rules.min_seconds)
    findings.add("left_numa", r.rank, t.off_node_s,
                 fmt::format("rank {}'s threads ran {} on CPUs of NUMA nodes other than its "
                             "memory's (nodes {})",
                             r.rank, duration_text(t.off_node_s), fmt::join(r.memory_nodes, ",")));
  const int threads = std::max<int>(1, static_cast<int>(loaded.threads.size()));
  if (t.migrations > rules.migrations_per_thread * threads)
    findings.add(
        "migrations", r.rank, 0,
        fmt::format("rank {}'s {} threads migrated {} times (more than {} per thread)", r.rank,
                    loaded.threads.size(), t.migrations, rules.migrations_per_thread));
}

// One rank's record into the host view and its findings; a rank without a watch gives only
// the finding that says so.
void merge_rank(const LoadedRecord& loaded, const JobRules& rules, JobHost& view,
                std::vector<CpuSet>& cores, std::vector<Placed>& placed, HostFindings& findings) {
  const RankRecord& r = loaded.record;
  view.ranks = std::max(view.ranks, r.ranks);
  view.ranks_seen.push_back(r.rank);
  view.cpus |= r.allowed;
  view.shares[r.rank] = r.share;
  if (cores.empty()) cores = r.cores;
  if (r.exit_status != 0)
    findings.add("failed_rank", r.rank, 0,
                 fmt::format("rank {} exited with status {}", r.rank, r.exit_status));
  if (r.watch_json.empty()) {
    view.cpus_unknown |= r.allowed;
    findings.add("watch_failed", r.rank, 0,
                 fmt::format("rank {} has no watch of its threads: {}", r.rank,
                             r.watch_error.empty() ? "no reason recorded" : r.watch_error));
    return;
  }
  view.threads[r.rank] = static_cast<int>(loaded.threads.size());
  if (loaded.threads.empty()) {
    view.unsampled.push_back(r.rank);
    view.cpus_unknown |= r.allowed;
  }
  view.timelines[r.rank] = loaded.threads;
  const RankTime t = rank_time(loaded, rules, view, placed);
  view.migrations[r.rank] = t.migrations;
  if (t.window) view.startup[r.rank] = t.startup;
  if (!t.activity_known) view.activity_unknown.push_back(r.rank);
  rank_time_findings(loaded, t, rules, findings);
}

// Ranks the node should have but no record says anything about, and two ranks given
// intersecting shares: the launcher's or the user's mistakes, visible before any thread ran.
void share_findings(JobHost& view, HostFindings& findings) {
  std::sort(view.ranks_seen.begin(), view.ranks_seen.end());
  std::vector<int> missing;
  for (int k = 0; k < view.ranks; ++k)
    if (!std::binary_search(view.ranks_seen.begin(), view.ranks_seen.end(), k))
      missing.push_back(k);
  if (!missing.empty())
    findings.add("missing_ranks", -1, 0,
                 fmt::format("no record from rank(s) {} of {} on this host",
                             fmt::join(missing, ","), view.ranks));
  for (auto a = view.shares.begin(); a != view.shares.end(); ++a)
    for (auto b = std::next(a); b != view.shares.end(); ++b) {
      CpuSet both = a->second & b->second;
      if (!both.empty())
        findings.add("share_overlap", b->first, 0,
                     fmt::format("ranks {} and {} were both given CPUs {}", a->first, b->first,
                                 both.to_list()));
    }
}

// Time two ranks' runnable threads sat on one core together.
void shared_core_findings(const CpuSet& core, const std::vector<const Placed*>& on,
                          const JobRules& rules, HostFindings& findings) {
  std::map<std::pair<int, int>, double> together;
  for (size_t i = 0; i < on.size(); ++i)
    for (size_t j = i + 1; j < on.size(); ++j)
      if (on[i]->rank != on[j]->rank) {
        auto key = std::minmax(on[i]->rank, on[j]->rank);
        together[{key.first, key.second}] += overlap(*on[i], *on[j]);
      }
  for (const auto& [ranks, seconds] : together)
    if (seconds > rules.min_seconds)
      findings.add("shared_core", ranks.second, seconds,
                   fmt::format("ranks {} and {} had threads on core {} at the same time for {} "
                               "(thread-seconds, sampled)",
                               ranks.first, ranks.second, core.to_list(), duration_text(seconds)));
}

// Time one core held more runnable threads than it has PUs (sleeping threads compete for
// nothing), found by sweeping the placed spans' start and end events.
void oversubscribed_core_finding(const CpuSet& core, const std::vector<const Placed*>& on,
                                 const JobRules& rules, const JobHost& view,
                                 HostFindings& findings) {
  std::vector<std::pair<double, int>> events;
  for (const Placed* p : on) {
    events.push_back({p->start, +1});
    events.push_back({p->end, -1});
  }
  // Only time spent over the core's PUs counts: two threads whose runnable spans touch for
  // one sample (a team's threads starting on a loaded machine) did not compete for the core.
  std::sort(events.begin(), events.end());
  const int pus = static_cast<int>(core.count());
  int now = 0, most = 0;
  double over_s = 0, last_t = events.empty() ? 0 : events.front().first;
  for (const auto& e : events) {
    if (now > pus) over_s += e.first - last_t;
    last_t = e.first;
    most = std::max(most, now += e.second);
  }
  if (most > pus && over_s > std::max(rules.min_seconds, rules.min_oversubscribed_s))
    findings.add(
        "oversubscribed_core", -1, over_s,
        fmt::format("core {} ({} PU) held up to {} of the job's runnable threads at once, "
                    "more than its PUs for {} (placed by their last CPU; {})",
                    core.to_list(), core.count(), most, duration_text(over_s),
                    view.activity_unknown.empty()
                        ? fmt::format("runnable: at least {:.0f}% of the time on a CPU",
                                      rules.runnable_share * 100)
                        : "CPU time not recorded by some ranks: their waiting threads count "
                          "too"));
}

// CPUs the ranks could use that no thread of the job was ever seen on. Only ranks whose watch
// saw a thread count: a rank without a watch, or one that ended before its first sample, may
// have run on any CPU it was allowed, so those CPUs are not judged.
void unused_cpu_findings(const JobHost& view, HostFindings& findings) {
  CpuSet used;
  for (const auto& [key, seconds] : view.seconds)
    if (seconds > 0) used.add(key.first);
  CpuSet unused = view.cpus - used - view.cpus_unknown;
  if (!unused.empty())
    findings.add("unused_cpus", -1, 0,
                 fmt::format("CPUs {} were allowed but no thread of the job was seen there",
                             unused.to_list()));
}

// One host's records into its view and findings: per rank first, then what only the ranks
// together show (missing ranks, overlapping shares, shared and oversubscribed cores, unused CPUs).
void merge_host(const std::string& host, const std::vector<const LoadedRecord*>& records,
                const JobRules& rules, JobReport& report) {
  JobHost view;
  view.host = host;
  HostFindings findings{host, report};
  std::vector<CpuSet> cores;
  std::vector<Placed> placed;
  for (const LoadedRecord* loaded : records)
    merge_rank(*loaded, rules, view, cores, placed, findings);
  share_findings(view, findings);
  for (const CpuSet& core : cores) {
    std::vector<const Placed*> on;
    for (const Placed& p : placed)
      if (core.contains(p.cpu)) on.push_back(&p);
    shared_core_findings(core, on, rules, findings);
    oversubscribed_core_finding(core, on, rules, view, findings);
  }
  unused_cpu_findings(view, findings);
  add_gpu_findings(host, records, view.startup, rules, report.findings);
  for (const LoadedRecord* loaded : records) {
    const RankRecord& r = loaded->record;
    if (r.gpus.empty()) continue;
    view.gpus[r.rank] = r.gpus;
    auto pages = record_page_bytes(r.watch_json);
    if (!pages.empty()) view.page_bytes[r.rank] = std::move(pages);
  }
  report.hosts.push_back(std::move(view));
}

// What `job --json` writes: recognised by its schema, not its name, so `job DIR --json
// DIR/any.json` followed by `job DIR` reads the records alone.
bool is_job_document(const std::string& text) {
  auto parsed = parse_json_text(text);
  return parsed && parsed->is_object() && parsed->contains("schema") &&
         (*parsed)["schema"] == "threadmap.job/1";
}

}  // namespace

JobReport merge_job(const std::vector<LoadedRecord>& records, std::vector<JobFinding> unreadable,
                    const JobRules& rules) {
  JobReport report;
  report.findings = std::move(unreadable);
  report.records = static_cast<int>(records.size());
  std::map<std::string, std::vector<const LoadedRecord*>> by_host;
  for (const LoadedRecord& r : records) {
    auto& list = by_host[r.record.host];
    if (const LoadedRecord* twin = find_rank(list, r.record.rank)) {
      report.findings.push_back({"unreadable", r.record.host, r.record.rank, 0,
                                 r.file + " repeats rank " + std::to_string(r.record.rank) +
                                     " of " + twin->file + "; ignored"});
      continue;
    }
    list.push_back(&r);
  }
  for (const auto& [host, list] : by_host) merge_host(host, list, rules, report);
  return report;
}

Result<JobReport> load_job(const std::string& dir, const JobRules& rules) {
  auto names = os::list_directory(dir);
  if (!names) return names.error();
  std::vector<LoadedRecord> records;
  std::vector<JobFinding> unreadable;
  std::vector<std::string> report_ignored;
  for (const std::string& name : *names) {
    if (name.size() < 5 || name.compare(name.size() - 5, 5, ".json") != 0) continue;
    const std::string path = dir + "/" + name;
    auto text = os::read_file(path);
    if (!text) {
      unreadable.push_back({"unreadable", "", -1, 0, text.error().message});
      continue;
    }
    auto record = parse_rank_record(*text, path);
    if (!record && is_job_document(*text)) {
      report_ignored.push_back(path);
      continue;
    }
    if (!record) {
      unreadable.push_back({"unreadable", "", -1, 0, record.error().message});
      continue;
    }
    records.push_back(std::move(*record));
  }
  if (records.empty())
    return Error::invalid("no rank records (threadmap.rank/1 *.json) in " + dir +
                          (unreadable.empty() ? "" : ": " + unreadable.front().text));
  JobReport report = merge_job(records, std::move(unreadable), rules);
  report.dir = dir;
  report.ignored = std::move(report_ignored);
  return report;
}

}  // namespace threadmap::cluster
