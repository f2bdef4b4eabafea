// `threadmap job DIR`: the per-rank records of a job merged into, per host, a CPU x rank picture
// of where each rank's threads ran, and findings about placements that went wrong.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "src/cluster/rank_record.hpp"
#include "threadmap/result.hpp"

namespace threadmap::cluster {

/// One thing wrong (or worth knowing) about the job. `id` is stable for scripts:
/// missing_ranks, share_overlap, left_share, left_numa, shared_core, oversubscribed_core,
/// unused_cpus, migrations, watch_failed, unreadable, failed_rank; with --gpus records also
/// gpu_cpus, gpu_pages, gpu_shared, gpu_idle (gpu_findings).
struct JobFinding {
  std::string id;
  std::string host;    ///< "" for a record that could not be read
  int rank = -1;       ///< the rank it is about, -1 for the host or the file
  double seconds = 0;  ///< how long it lasted (sampled), 0 when not a duration
  std::string text;    ///< one sentence with the evidence
};

/// A rank's launcher start-up window: from the watch's first sample until the program's first
/// own thread started running, or until the main thread came back into its share after the
/// MPI library bound it elsewhere during MPI_Init (whichever is first). What happens there is
/// the launcher's and the library's doing: shown apart, never a finding.
struct StartupWindow {
  double start_s = 0;
  double end_s = 0;
  double outside_s = 0;  ///< thread-seconds on CPUs outside the share within the window
  CpuSet outside_cpus;
  std::string until;  ///< what ended it ("the program's first own thread", ...)
};

/// One host of the job.
struct JobHost {
  std::string host;
  int ranks = 0;                         ///< ranks on this node (from the records)
  std::vector<int> ranks_seen;           ///< local ranks with a record, ascending
  CpuSet cpus;                           ///< every CPU the ranks could use
  std::map<int, CpuSet> shares;          ///< rank -> share
  std::map<int, int> threads;            ///< rank -> threads its watch saw
  std::map<int, int> migrations;         ///< rank -> migrations counted by its watch
  std::map<int, StartupWindow> startup;  ///< rank -> its start-up window (when it has one)
  /// Ranks whose watch recorded no CPU time per span (older records): every placed thread
  /// counts as runnable for shared_core and oversubscribed_core.
  std::vector<int> activity_unknown;
  /// Ranks whose watch saw none of their threads (a run shorter than one sample): where they
  /// ran is unknown, so their CPUs are left out of unused_cpus.
  std::vector<int> unsampled;
  CpuSet cpus_unknown;  ///< CPUs allowed to ranks without a watch or unsampled: not judged
  /// (cpu, rank) -> thread-seconds the rank's threads were placed on that CPU (sampled: each
  /// sample holds a thread's CPU until the next).
  std::map<std::pair<int, int>, double> seconds;
  /// rank -> its threads as its watch saw them (where and when each ran): the per-rank
  /// timeline of `job --html`. Ranks without a watch have none.
  std::map<int, std::vector<RecordThread>> timelines;
  std::map<int, std::vector<RecordGpu>> gpus;  ///< rank -> its GPUs (ranks run with --gpus)
  /// rank -> bytes of its pages per NUMA node at the end of its watch (ranks with GPUs whose
  /// watch read them), the evidence of gpu_pages.
  std::map<int, std::map<int, double>> page_bytes;
};

struct JobReport {
  std::string dir;
  std::vector<JobHost> hosts;  ///< by host name
  std::vector<JobFinding> findings;
  int records = 0;
  std::vector<std::string> ignored;  ///< files `job` wrote itself (threadmap.job/1), skipped
};

/// Thresholds that turn counts into findings (documented in docs/cluster.md).
struct JobRules {
  double min_seconds = 0.0;           ///< shorter excursions are not reported
  double migrations_per_thread = 10;  ///< more per thread (on average) is a finding
  /// A thread that used at least this share of a span's time on a CPU was runnable there;
  /// sleeping threads (usleep, an OpenMP team at a passive barrier, MPI's progress threads)
  /// neither oversubscribe nor share a core.
  double runnable_share = 0.10;
  /// A core is oversubscribed only when it held more runnable threads than PUs for longer than
  /// this: more than one sampling interval of `run --record` (100 ms), so threads whose
  /// runnable spans touch at one sample (a team starting on a loaded machine) are not a finding.
  double min_oversubscribed_s = 0.15;
  /// gpu_pages: pages on NUMA nodes other than the rank's GPU's above this share of its pages
  /// and this many bytes (a program's shared libraries, a few MiB that another process loaded
  /// first, stay below it).
  double far_pages_share = 0.10;
  double min_far_bytes = 64.0 * (1 << 20);
};

/// Whether a thread was runnable during span `s` under `rules` (it used at least
/// runnable_share of the span's time on its CPU; a span without CPU time counts as runnable):
/// the one rule behind the findings and the timeline's running vs waiting.
bool runnable(const RecordSpan& s, const JobRules& rules);

/// Whether a thread that did not run during span `s` (not runnable() above) wanted to: it
/// waited on a run queue for a CPU at least runnable_share of the span (schedstat). A thread
/// asleep waits on none. False when the wait was not recorded.
bool starved(const RecordSpan& s, const JobRules& rules);

/// Merges records already read. Records that failed to parse are passed as findings.
JobReport merge_job(const std::vector<LoadedRecord>& records,
                    std::vector<JobFinding> unreadable = {}, const JobRules& rules = {});

/// Reads every *.json in `dir` (bounded reads) and merges them. A job document `job --json`
/// wrote there (schema threadmap.job/1) is skipped and listed in `ignored`; any other file that
/// is not a record is an "unreadable" finding naming it; the others are still merged. Fails
/// (ENOENT, ENOTDIR) when `dir` cannot be listed, and with EINVAL when it holds no record at all.
Result<JobReport> load_job(const std::string& dir, const JobRules& rules = {});

}  // namespace threadmap::cluster
