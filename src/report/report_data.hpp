// `threadmap report`: everything the machine report shows, collected in one pass: topology,
// the latency matrix and what it says (domains, agreement with hwloc, numbering lies), the
// placement recommendations with the commands that apply them, and the seed benchmarks. A part
// that cannot be produced here is marked unavailable with the reason; its numbers are never
// made up. Rendered by src/render/report_* (HTML page and JSON, "threadmap.report/1").
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/core/devices.hpp"
#include "src/core/machine_state.hpp"
#include "src/core/process_binding.hpp"
#include "src/experiments/bench_result.hpp"
#include "src/experiments/experiments.hpp"
#include "src/latency/compare.hpp"
#include "src/latency/domains.hpp"
#include "src/latency/matrix.hpp"
#include "src/latency/measurement.hpp"
#include "src/latency/numbering.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::report {

// The report runs and shows the seed benches; their result types are the report's vocabulary.
using experiments::BenchResult;
using experiments::SpawnOptions;
using experiments::Variant;

/// Whether a part of the report could be produced, and if not, why.
struct PartStatus {
  bool available = true;
  std::string reason;  ///< why not (the library's error message); empty when available
  double seconds = 0;  ///< wall time spent producing it
  /// Its share of the report's time budget (ReportOptions::budget_s), in seconds; the part
  /// stops measuring by its own rule within it (latency: time per pair; a bench: its rounds).
  /// `seconds` may exceed it where a part cannot be cut shorter (one round of each variant).
  double share_s = 0;
  /// The share it was given when it started: its share, plus what the parts before it left
  /// unused (or less what they overran; report_budget's share_with_carry). 0 = share_s.
  double given_s = 0;
};

/// One command that applies a recommendation with a given tool.
struct ApplyCommand {
  std::string tool;     ///< "threadmap run", "taskset", "OMP_PLACES"
  std::string command;  ///< ready to paste; ./app stands for the user's program
};

/// A recommendation and the ways to apply it.
struct Recommendation {
  std::string title;  ///< "2 communicating threads"
  std::string cpus;   ///< kernel list of the recommended CPUs, in thread order ("0,1")
  std::string why;    ///< one sentence: what it is based on ("measured latency: 28 ns, same L3")
  std::vector<ApplyCommand> commands;
};

/// The latency part.
struct LatencyPart {
  PartStatus status;
  std::string how;  ///< "measured on this machine (method cas, ...)" or "loaded from FILE"
  std::optional<latency::Measurement> measurement;  ///< when measured here
  latency::Matrix matrix;
  latency::DomainAnalysis domains;
  latency::NumberingLies numbering;
  std::optional<latency::TopologyComparison> comparison;  ///< vs this machine's hwloc topology
  std::vector<std::size_t> order;                         ///< heatmap row order (topology)
  bool describes_this_machine = true;  ///< false when a loaded matrix looks like another machine
  /// For a loaded matrix, the machine it names: its CPU model (and host, when the JSON says),
  /// or "machine unknown" (a CSV names none). Empty when measured here.
  std::string loaded_machine;
  std::vector<std::string> notes;  ///< caveats (quick mode, another machine's matrix...)
  /// Whether the latency structure held still: "stable", "unstable" or "unknown" (the latency
  /// JSON's "stability" object, from latency::analyse). When "unstable", `stability_finding` is
  /// the sentence the page shows at the top ("this machine's latency structure is not stable (N
  /// of M pairs moved): ...").
  std::string stability_state = "unknown";
  std::string stability_finding;
};

/// What placement to use on this machine.
struct AdvicePart {
  PartStatus status;
  std::string model;  ///< the cost model the planner used (measured latency or topology)
  std::vector<Recommendation> recommendations;
  bool has_smt = false;
  std::string smt_layout;  ///< e.g. "2 hardware threads per core: 0,64 1,65 ..."; or "no SMT"
  std::vector<std::string> smt_guidance;  ///< sentences, each backed by what was measured
  /// What the placement benches (contention, pingpong, migrate) clearly showed, one sentence
  /// each, from clear verdicts only.
  std::vector<std::string> placement_findings;
  /// True when no placement bench variant differed clearly from its baseline: then the advice
  /// is "nothing to gain from placement here" (placement_summary says so, with the evidence)
  /// instead of recommendations that only name every usable CPU.
  bool nothing_to_gain = false;
  std::string placement_summary;  ///< one sentence for "At a glance"; "" when nothing ran
};

/// The whole report.
struct MachineReport {
  std::string generated_utc;  ///< ISO 8601 UTC time the report was started
  std::string threadmap_version;
  std::string host;          ///< this host's name ("" when it cannot be read)
  std::string command_line;  ///< the command that asked for the report (ReportOptions)
  double budget_s = 0;       ///< the time budget the parts' shares add up to
  bool quick = false;
  std::optional<Topology> topology;  ///< absent only when this machine cannot be discovered
  PartStatus topology_status;
  DeviceInventory devices;  ///< GPUs, NICs, NVMe drives with their locality (docs/gpu.md)
  std::string usable_cpus;
  /// This process's binding against its cgroup; a launcher's narrower binding (srun's task
  /// binding, mpirun's --bind-to core) is the first line of the terminal output and the page.
  /// Absent when the topology could not be read.
  std::optional<ProcessBinding> binding;
  LatencyPart latency;
  AdvicePart advice;
  std::vector<BenchResult> benches;      ///< in experiments::benches() order
  std::vector<PartStatus> bench_status;  ///< one per bench: failures are kept, not fatal
  double total_seconds = 0;
  /// The machine's state from just before the latency measurement to the end of the benches
  /// (each bench also carries its own); absent when the topology could not be read.
  std::optional<MachineState> machine_state;
};

/// What to put in the report and how hard to measure.
struct ReportOptions {
  bool quick = false;        ///< latency of one pair per topology class, short benches
  int runs = 0;              ///< bench runs; 0 = 5 (3 with quick)
  std::string latency_file;  ///< use this saved matrix instead of measuring
  std::string version = "threadmap";
  SpawnOptions spawn_tools;  ///< where bin/threadmap-spawn and the cache library are
  /// Progress lines ("[3/8] measuring core-to-core latency"); may be empty.
  std::function<void(const std::string&)> progress;
  /// A line to show before anything is measured (the binding finding); may be empty.
  std::function<void(const std::string&)> warning;
  /// Latency measurement progress (pairs done), for a live display; may be empty.
  std::function<void(const latency::Progress&)> latency_progress;
  /// The time budget in seconds that the parts share (report_budget.hpp: topology, latency,
  /// each bench, recommendations); 0 = the default, 60 (20 with quick).
  double budget_s = 0;
  std::string command_line;  ///< shown in the page's header; may be empty
};

/// Collects the report. Fails only when `options` are invalid (an unreadable --latency file is
/// a failure too: the user asked for it); every other problem becomes an unavailable part.
Result<MachineReport> collect_report(const ReportOptions& options);

/// The commands applying a CPU list: `threadmap run`, taskset and OMP_PLACES (one place per
/// CPU, in thread order, with OMP_PROC_BIND=close). `thread_cache` adds --thread-cache.
/// `threads`: OMP_NUM_THREADS, 0 = one thread per CPU (two threads sharing one CPU: 2).
std::vector<ApplyCommand> apply_commands(const std::vector<int>& cpus, bool thread_cache,
                                         int threads = 0);

}  // namespace threadmap::report
