// The workload spec: what the user knows about their threads (who talks to whom and how much,
// who crunches numbers, who is background noise) and the CPUs they may use. Parsed from JSON
// (`threadmap plan --spec FILE`, format in docs/plan.md) or built by the quick forms
// (`--pairs N`, `--threads N --policy P`). Parsing validates everything that does not need a
// machine; CPU expressions are resolved later against the topology by the planner.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/plan/policy.hpp"
#include "threadmap/result.hpp"

namespace threadmap::plan {

/// One thread of the workload, after the count shorthand ("worker[0-7]") was expanded.
struct ThreadSpec {
  std::string name;
  bool compute = false;           ///< never shares an SMT core with another compute thread
  bool latency_critical = false;  ///< gets the best pairs first; background keeps away
  bool background = false;        ///< away from latency-critical threads, on E-cores if any
  bool exclusive = false;         ///< wants a whole core: nobody else on its SMT siblings
  int share_core_with = -1;       ///< index of the thread it must share one core with, or -1
  int memory_node = -1;           ///< NUMA node holding its memory, or -1 when not stated
  std::string cpus;               ///< CPU expression it is limited to, "" = any allowed CPU
};

/// Traffic between two threads: cost = weight x latency of the CPUs they land on.
struct EdgeSpec {
  int a = -1;  ///< thread index
  int b = -1;  ///< thread index
  double weight = 1.0;
  std::string origin;  ///< where it came from ("edge producer-consumer", "group workers")
};

/// A whole workload. Threads are in creation order (spec order, shorthand expanded): the
/// assignments of a plan follow that order, which is what `threadmap run --plan` relies on.
struct WorkloadSpec {
  std::vector<ThreadSpec> threads;
  std::vector<EdgeSpec> edges;  ///< groups are expanded into all-to-all edges
  std::string allowed;          ///< CPU expression; "" = every allowed CPU of the machine
  std::string reserved;         ///< CPU expression kept free (OS, interrupts); "" = none
  bool prefer_isolated = true;  ///< prefer isolated CPUs (isolcpus) when the machine has them
  bool oversubscribe = false;   ///< may two threads share one CPU
  std::string source;           ///< the file it came from, or the quick form that built it
  /// What a quick form assumed about the traffic that the user did not say ("--threads 8:
  /// modelled as 8 threads that all talk to each other equally ..."); "" for a spec file.
  std::string assumed;

  /// Index of a thread by its (expanded) name, or -1.
  int find(std::string_view name) const;
};

/// Parses a spec from JSON text; `source` names the input in error messages. Fails with
/// EINVAL and one line naming the source and the offending key or value (unknown key, bad
/// type, duplicate or unknown thread name, share-core-with cycle, non-positive weight...).
Result<WorkloadSpec> parse_spec(std::string_view json_text, const std::string& source);

/// Reads and parses a spec file. Fails with the errno of the read or parse_spec's error.
Result<WorkloadSpec> load_spec(const std::string& path);

/// Expands the count shorthand: "worker[0-3]" -> worker0..worker3, "cpu[2-3]x" -> cpu2x, cpu3x;
/// a name without brackets is returned as is. Fails on a malformed or empty range.
Result<std::vector<std::string>> expand_name(std::string_view pattern);

/// Quick form `--pairs N`: N pairs (pairK.a, pairK.b) that talk only to each other
/// (latency-critical, weight 1), as in a ping-pong or a contending pair.
Result<WorkloadSpec> pairs_spec(int pairs);

/// How the quick form `threads_spec` places its threads: one of the CPU policies of policy.hpp
/// (the same order `threadmap run --policy` pins in), or hwloc-distrib spreading, which splits a
/// known number of threads over the machine and so is no CPU order (the planner alone has it).
enum class QuickPolicy {
  compact,      ///< the threads talk all-to-all; CPUs in Policy::compact order
  scatter,      ///< compute threads; CPUs in Policy::scatter order
  round_robin,  ///< compute threads; CPUs in ascending numbers (Policy::round_robin)
  spread,       ///< hwloc-distrib-style spreading over the whole machine
};

/// Parses "spread" or a name parse_policy accepts. On failure EINVAL: "unknown policy 'TEXT'
/// (expected compact, scatter, round-robin or spread)".
Result<QuickPolicy> parse_quick_policy(std::string_view text);

/// Every name parse_quick_policy accepts: policy_names() and "spread".
const std::vector<std::string>& quick_policy_names();

/// The CPU policy a quick policy places by; nullopt for spread.
std::optional<Policy> cpu_policy(QuickPolicy policy);

/// Quick form `--threads N --policy P` (see QuickPolicy).
Result<WorkloadSpec> threads_spec(int threads, QuickPolicy policy);

}  // namespace threadmap::plan
