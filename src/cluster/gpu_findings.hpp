// `threadmap job` for ranks run with --gpus: did each rank stay next to its GPU? Thread time on
// CPUs not local to the rank's GPUs, pages on NUMA nodes other than the GPUs' beyond a stated
// share, two ranks driving one GPU, a GPU of the host no rank drives.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/cluster/job_merge.hpp"
#include "src/cluster/rank_record.hpp"

namespace threadmap::cluster {

/// Where a rank's pages were at the end of its watch (numa_pages of its threadmap.watch/1
/// document; the start when the end is missing): node -> bytes. Empty when not recorded.
std::map<int, double> record_page_bytes(const std::string& watch_json);

/// Appends the GPU findings of one host's records (those with GPUs; others are skipped):
/// gpu_cpus (thread-seconds outside the GPUs' local CPUs after the start-up window, beyond
/// rules.min_seconds), gpu_pages (bytes on other nodes than the GPUs' above rules.far_pages_share
/// of the rank's pages and rules.min_far_bytes), gpu_shared (two ranks with one GPU), gpu_idle (a
/// host GPU no rank drives, judged only when every rank of the host has a record). `startup`
/// holds each rank's start-up window end, as merge_job found it (absent: none).
void add_gpu_findings(const std::string& host, const std::vector<const LoadedRecord*>& records,
                      const std::map<int, StartupWindow>& startup, const JobRules& rules,
                      std::vector<JobFinding>& findings);

}  // namespace threadmap::cluster
