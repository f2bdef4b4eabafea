// The run: choose the pairs, shuffle them, measure each pair twice (the second time later in
// the run, interleaved with other pairs' first passes) and judge each pair from both passes.
// Why twice: on shared or virtualised machines the same pair reads 25-30 ns in one moment and
// ~125 ns in another (the host moved a vCPU); one pass cannot tell that from the truth.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>

#include "src/latency/clock.hpp"
#include "src/latency/measurement.hpp"
#include "src/latency/pair_plan.hpp"
#include "src/latency/pingpong.hpp"
#include "src/latency/stats.hpp"
#include "src/os/host.hpp"
#include "threadmap/affinity.hpp"

namespace threadmap::latency {
namespace {

using CpuPair = std::pair<int, int>;

std::string format_ns(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// The CPUs asked for, checked before any thread is pinned, so a bad request fails at once with
// the set it was about rather than half-way through a run of minutes.
Result<CpuSet> cpus_to_measure(const MeasureOptions& options) {
  auto allowed = allowed_cpus();
  if (!allowed) return allowed.error();
  CpuSet cpus = options.cpus.empty() ? *allowed : options.cpus;
  if (!cpus.is_subset_of(*allowed)) {
    return Error::invalid("cannot measure latency on CPUs " + cpus.to_list() + ": " +
                          (cpus - *allowed).to_list() + " not in the allowed set " +
                          allowed->to_list());
  }
  if (cpus.count() < 2) {
    return Error::invalid("latency needs at least 2 CPUs to measure between, got '" +
                          cpus.to_list() + "' (allowed: " + allowed->to_list() + ")");
  }
  if (!(options.precision > 0 && options.precision < 1)) {
    return Error::invalid("latency precision must be between 0 and 100%");
  }
  if (!(options.budget_ms > 0)) return Error::invalid("latency budget must be > 0 ms");
  return cpus;
}

// What the run is, before anything is measured: the method, the machine and the clock, which
// also sets how long a timed batch must last.
Measurement describe_run(const MeasureOptions& options, const Topology& topology,
                         const CpuSet& cpus) {
  Measurement run;
  run.method = options.method;
  run.precision = options.precision;
  run.budget_ms = options.budget_ms;
  run.quick = options.quick;
  run.matrix = make_matrix(cpus.to_vector());
  run.matrix.source = "measured on this machine";
  run.matrix.cpu_model = topology.cpu_model();
  run.matrix.cell_statistic =
      "per pair the median of its timed batches (both passes pooled; the lower median when "
      "the passes disagree)";
  run.hostname = os::host_name();
  run.kernel = os::kernel_release();

  run.clock_resolution_ns = clock_resolution_ns();
  // >= 1000 clock ticks per batch keeps the quantisation error under 0.1%; >= 20 us keeps the
  // two clock reads (tens of ns on VMs) under 0.25% of the batch.
  run.min_batch_ns = std::max(1000.0 * run.clock_resolution_ns, 20000.0);
  return run;
}

// The pairs to measure, and with --quick what each stands for.
struct PairPlan {
  std::vector<CpuPair> pairs;
  std::vector<std::string> represents;  ///< --quick: the class of pairs[i], with its size
};

// All pairs, or with --quick one random representative per topology class: the class's other
// pairs are assumed to read the same, which is what makes --quick quick on big machines.
PairPlan plan_pairs(const std::vector<int>& list, bool quick, const Topology& topology,
                    std::mt19937_64& rng) {
  PairPlan plan;
  if (!quick) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      for (std::size_t j = i + 1; j < list.size(); ++j) plan.pairs.push_back({list[i], list[j]});
    }
    return plan;
  }
  std::map<std::string, std::vector<CpuPair>> classes;
  for (std::size_t i = 0; i < list.size(); ++i) {
    for (std::size_t j = i + 1; j < list.size(); ++j) {
      classes[pair_class(topology, list[i], list[j])].push_back({list[i], list[j]});
    }
  }
  for (auto& [name, members] : classes) {
    std::uniform_int_distribution<std::size_t> pick(0, members.size() - 1);
    plan.pairs.push_back(members[pick(rng)]);
    plan.represents.push_back(name + " (" + std::to_string(members.size()) + " pairs)");
  }
  return plan;
}

PassConfig pass_config(const MeasureOptions& options, double min_batch_ns) {
  PassConfig config;
  config.method = options.method;
  config.precision = options.precision;
  config.budget_ns = options.budget_ms * 1e6;
  config.min_batch_ns = min_batch_ns;
  config.min_samples = options.min_samples;
  config.max_samples = options.max_samples;
  return config;
}

// What the passes left: each pair's samples (what the judge reads) and where the lines lived.
struct RecordedPasses {
  std::vector<PairSamples> samples;  ///< one per pair, in the plan's order
  std::map<int, int> line_nodes;     ///< initiator CPU -> NUMA node of its lines
  double total_s = 0;
};

// Runs the passes in the schedule's shuffled order (the only step that touches the machine),
// keeping each pass's samples with its pair and telling the caller after each one.
Result<RecordedPasses> run_passes(const std::vector<CpuPair>& pairs,
                                  const std::vector<PassTask>& tasks, const PassConfig& config,
                                  const std::function<void(const Progress&)>& report_progress) {
  RecordedPasses out;
  out.samples.resize(pairs.size());
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    out.samples[p].cpu_a = pairs[p].first;
    out.samples[p].cpu_b = pairs[p].second;
  }
  const std::int64_t start = now_ns();
  Progress progress;
  progress.pairs_total = tasks.size();
  for (const PassTask& task : tasks) {
    auto [a, b] = pairs[task.pair];
    auto pass = measure_pair_pass(a, b, config);
    if (!pass) return pass.error();
    if (pass->line_numa_node >= 0) out.line_nodes[a] = pass->line_numa_node;
    PairSamples& in = out.samples[task.pair];
    if (task.pass == 0) {
      in.first_ns = std::move(pass->one_way_ns);
      in.first_converged = pass->converged;
      in.round_trips_per_batch = pass->round_trips_per_batch;
    } else {
      in.rechecked = true;
      in.second_ns = std::move(pass->one_way_ns);
      in.second_converged = pass->converged;
    }
    in.elapsed_ms += pass->elapsed_ns / 1e6;
    ++progress.pairs_done;
    progress.elapsed_s = static_cast<double>(now_ns() - start) / 1e9;
    progress.eta_s = progress.elapsed_s / static_cast<double>(progress.pairs_done) *
                     static_cast<double>(progress.pairs_total - progress.pairs_done);
    progress.cpu_a = a;
    progress.cpu_b = b;
    if (report_progress) report_progress(progress);
  }
  out.total_s = static_cast<double>(now_ns() - start) / 1e9;
  return out;
}

// Each measured pair's reported value into both of its cells.
void fill_measured_cells(Matrix& matrix, const std::vector<PairStats>& pairs) {
  for (const PairStats& s : pairs) {
    std::size_t i = static_cast<std::size_t>(matrix.index_of(s.cpu_a));
    std::size_t j = static_cast<std::size_t>(matrix.index_of(s.cpu_b));
    matrix.at(i, j) = matrix.at(j, i) = s.reported_ns;
  }
}

// --quick: every cell copies its topology class's representative, so the matrix is whole.
void fill_cells_from_classes(Matrix& matrix, const std::vector<PairStats>& pairs,
                             const Topology& topology) {
  std::map<std::string, double> class_value;
  for (const PairStats& s : pairs) {
    class_value[pair_class(topology, s.cpu_a, s.cpu_b)] = s.reported_ns;
  }
  const std::vector<int>& list = matrix.cpus;
  for (std::size_t i = 0; i < list.size(); ++i) {
    for (std::size_t j = i + 1; j < list.size(); ++j) {
      double v = class_value[pair_class(topology, list[i], list[j])];
      matrix.at(i, j) = matrix.at(j, i) = v;
    }
  }
}

// Where the bounced lines lived, in words: a reader comparing two machines' matrices needs to
// know the line started in the initiator's cache and which NUMA node held it.
std::string describe_line_placement(const std::map<int, int>& line_nodes) {
  std::string text =
      "a fresh page per pair and pass, mapped and first written by the initiator thread (the "
      "lower CPU of the pair), so the line starts in the initiator's cache and its NUMA node";
  if (line_nodes.empty()) return text;
  std::map<int, std::vector<int>> by_node;
  for (auto [cpu, node] : line_nodes) by_node[node].push_back(cpu);
  std::string where;
  for (auto& [node, initiators] : by_node) {
    if (!where.empty()) where += "; ";
    where += "node " + std::to_string(node) + " for initiators " +
             CpuSet::from_vector(initiators).to_list();
  }
  return text + " (" + where + ")";
}

// What the user must know about the pairs' verdicts (unstable, multimodal, not converged): the
// matrix alone hides each of them.
std::vector<std::string> verdict_notes(const JudgedPairs& judged, const MeasureOptions& options) {
  std::vector<std::string> notes;
  const std::string pairs = std::to_string(judged.pairs.size());
  if (judged.unstable) {
    notes.push_back(std::to_string(judged.unstable) + " of " + pairs +
                    " pairs unstable: the two passes' 95% intervals do not overlap and their "
                    "medians differ by more than +-" +
                    format_ns(options.precision * 100) +
                    "%; the "
                    "matrix keeps the lower median, the JSON has both");
  }
  if (judged.multimodal) {
    notes.push_back(std::to_string(judged.multimodal) +
                    " pairs multimodal: samples fall into separated modes (see modes_ns)");
  }
  if (judged.not_converged) {
    notes.push_back(std::to_string(judged.not_converged) + " of " + pairs +
                    " pairs did not reach +-" + format_ns(options.precision * 100) + "% within " +
                    format_ns(options.budget_ms) + " ms per pass");
  }
  return notes;
}

}  // namespace

Result<Measurement> measure(const MeasureOptions& options, const Topology& topology) {
  const std::int64_t start = now_ns();
  Result<CpuSet> cpus = cpus_to_measure(options);
  if (!cpus) return cpus.error();
  Measurement run = describe_run(options, topology, *cpus);

  std::mt19937_64 rng(options.seed ? options.seed : static_cast<std::uint64_t>(now_ns()));
  PairPlan plan = plan_pairs(cpus->to_vector(), options.quick, topology, rng);
  if (options.quick) {
    run.notes.push_back("quick mode: measured " + std::to_string(plan.pairs.size()) +
                        " representative pair(s), one per topology class; every other cell "
                        "copies its class's representative");
  }
  std::vector<PassTask> tasks = schedule_passes(plan.pairs.size(), options.recheck, rng);
  auto passes =
      run_passes(plan.pairs, tasks, pass_config(options, run.min_batch_ns), options.progress);
  if (!passes) return passes.error();
  run.passes_s = passes->total_s;

  JudgedPairs judged = judge_pairs(std::move(passes->samples), options.precision);
  if (options.quick) {
    for (std::size_t p = 0; p < judged.pairs.size(); ++p) {
      judged.pairs[p].represents = plan.represents[p];
    }
  }
  fill_measured_cells(run.matrix, judged.pairs);
  run.matrix.stability = judged.stability;
  if (options.quick) fill_cells_from_classes(run.matrix, judged.pairs, topology);
  run.line_placement = describe_line_placement(passes->line_nodes);
  for (std::string& note : verdict_notes(judged, options)) run.notes.push_back(std::move(note));
  run.pairs = std::move(judged.pairs);
  run.total_s = static_cast<double>(now_ns() - start) / 1e9;
  return run;
}

}  // namespace threadmap::latency
