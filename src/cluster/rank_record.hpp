// The per-rank record: what `threadmap run --ranks ... --record DIR` leaves for each rank
// (DIR/<host>.<rank>.json, schema "threadmap.rank/1") and what `threadmap job DIR` merges.
// This header is the contract between the two sides; docs/json.md documents the JSON.
#pragma once

#include <string>
#include <vector>

#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"

namespace threadmap::cluster {

/// Where a rank's share came from.
enum class ShareSource {
  split,      ///< threadmap split the CPUs this process may use into equal shares
  launcher,   ///< the launcher had already bound the rank to a strict subset: kept as it was
  explicit_,  ///< --ranks K/N given on the command line (split as `split`)
};

/// One NUMA node of the host as the record saw it (OS numbering, as numactl and /sys).
struct RecordNumaNode {
  int os_index = -1;
  CpuSet cpus;
};

/// A GPU as a record names it (run --ranks --gpus).
struct RecordGpu {
  std::string bus_id;  ///< "0000:34:00.0"
  int index = -1;      ///< PCI bus order among the host's GPUs of its vendor
  std::string model;
  std::string uuid;  ///< "" when unknown
  int numa_node = -1;
  CpuSet cpus;  ///< CPUs local to it
};

/// What a rank writes. `watch_json` is the rank's `threadmap.watch/1` document verbatim (per
/// thread CPU spans with start_s/end_s/cpu, counters, numa_pages), so `job` reads the same
/// evidence `watch --json` gives, from one implementation of the watch.
struct RankRecord {
  std::string host;      ///< short host name
  int rank = -1;         ///< local rank on this node, 0-based
  int ranks = 0;         ///< ranks on this node
  int global_rank = -1;  ///< job-wide rank when the launcher says it (-1 unknown)
  std::string launcher;  ///< "openmpi", "pmix", "slurm", "hydra", "explicit"
  ShareSource share_source = ShareSource::split;
  CpuSet share;                   ///< CPUs this rank's threads were placed in
  std::vector<int> memory_nodes;  ///< OS NUMA nodes of the share (empty: unknown)
  CpuSet allowed;                 ///< CPUs the process could use before the split
  std::vector<CpuSet> cores;      ///< the host's cores (SMT siblings together) over `allowed`
  std::vector<RecordNumaNode> numa_nodes;  ///< the host's NUMA nodes (may be empty: unknown)
  int exit_status = 0;                     ///< the program's exit status (as run reports it)
  std::vector<RecordGpu> gpus;             ///< with --gpus: the rank's GPUs (empty without)
  std::vector<RecordGpu> host_gpus;        ///< with --gpus: every GPU of the host of that vendor
  std::string gpus_how;                    ///< how the rank's GPUs were chosen
  std::string nic;                         ///< the NIC named for it ("mlx5_0", "eth0"), "" for none
  std::string watch_json;   ///< threadmap.watch/1 document, or "" when the watch failed
  std::string watch_error;  ///< why there is no watch document ("" when there is one)
};

/// "<host>.<rank>.json"; host names are sanitized to [A-Za-z0-9._-] (anything else becomes '_')
/// so a record never escapes DIR.
std::string record_file_name(const std::string& host, int rank);

const char* share_source_name(ShareSource source);

/// The record as the JSON text written to DIR/<host>.<rank>.json ("threadmap.rank/1"). The
/// reader and the writer of this data file live together here, so they cannot drift apart
/// (as apply/plan_file reads what `plan --json` writes).
std::string rank_record_to_json(const RankRecord& record);

/// One thread of a rank as its watch saw it: where it ran, when.
struct RecordSpan {
  double start_s = 0;
  double end_s = 0;
  int cpu = -1;
  double cpu_s = -1;  ///< CPU time used during the span; -1: not recorded (older watches)
  /// Time runnable but waiting on a run queue for a CPU; -1: not recorded (no schedstat, older
  /// watches).
  double wait_s = -1;
};
struct RecordThread {
  int tid = 0;
  std::string name;
  int migrations = 0;
  std::vector<RecordSpan> spans;
};

/// A record read back, with the threads of its watch document.
struct LoadedRecord {
  std::string file;
  int pid = 0;  ///< the watched program (its main thread's tid), 0 when not recorded
  RankRecord record;
  std::vector<RecordThread> threads;
};

/// Parses record JSON; `source` names the file in errors (EINVAL: wrong schema, missing or
/// ill-typed field, CPU list that does not parse).
Result<LoadedRecord> parse_rank_record(const std::string& text, const std::string& source);

}  // namespace threadmap::cluster
