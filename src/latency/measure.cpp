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

std::string format_ns(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

Result<Measurement> measure(const MeasureOptions& options, const Topology& topology) {
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

  // Pairs: all, or with --quick one random representative per topology class.
  const std::vector<int> list = cpus.to_vector();
  std::vector<std::pair<int, int>> pairs;
  std::vector<std::string> represents;
  std::mt19937_64 rng(options.seed ? options.seed : static_cast<std::uint64_t>(now_ns()));
  if (options.quick) {
    std::map<std::string, std::vector<std::pair<int, int>>> classes;
    for (std::size_t i = 0; i < list.size(); ++i) {
      for (std::size_t j = i + 1; j < list.size(); ++j) {
        classes[pair_class(topology, list[i], list[j])].push_back({list[i], list[j]});
      }
    }
    for (auto& [name, members] : classes) {
      std::uniform_int_distribution<std::size_t> pick(0, members.size() - 1);
      pairs.push_back(members[pick(rng)]);
      represents.push_back(name + " (" + std::to_string(members.size()) + " pairs)");
    }
    run.notes.push_back("quick mode: measured " + std::to_string(pairs.size()) +
                        " representative pair(s), one per topology class; every other cell "
                        "copies its class's representative");
  } else {
    for (std::size_t i = 0; i < list.size(); ++i) {
      for (std::size_t j = i + 1; j < list.size(); ++j) pairs.push_back({list[i], list[j]});
    }
  }

  PassConfig config;
  config.method = options.method;
  config.precision = options.precision;
  config.budget_ns = options.budget_ms * 1e6;
  config.min_batch_ns = run.min_batch_ns;
  config.min_samples = options.min_samples;
  config.max_samples = options.max_samples;

  std::vector<PassTask> tasks = schedule_passes(pairs.size(), options.recheck, rng);
  std::vector<PassResult> first(pairs.size()), second(pairs.size());
  std::vector<bool> has_second(pairs.size(), false);
  std::map<int, int> line_nodes;  // initiator CPU -> NUMA node of its lines
  const std::int64_t start = now_ns();
  Progress progress;
  progress.pairs_total = tasks.size();
  for (const PassTask& task : tasks) {
    auto [a, b] = pairs[task.pair];
    auto pass = measure_pair_pass(a, b, config);
    if (!pass) return pass.error();
    if (pass->line_numa_node >= 0) line_nodes[a] = pass->line_numa_node;
    if (task.pass == 0) {
      first[task.pair] = std::move(*pass);
    } else {
      second[task.pair] = std::move(*pass);
      has_second[task.pair] = true;
    }
    ++progress.pairs_done;
    progress.elapsed_s = static_cast<double>(now_ns() - start) / 1e9;
    progress.eta_s = progress.elapsed_s / static_cast<double>(progress.pairs_done) *
                     static_cast<double>(progress.pairs_total - progress.pairs_done);
    progress.cpu_a = a;
    progress.cpu_b = b;
    if (options.progress) options.progress(progress);
  }
  run.total_s = static_cast<double>(now_ns() - start) / 1e9;

  std::size_t unstable = 0, multimodal = 0, not_converged = 0;
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    PairSamples in;
    in.cpu_a = pairs[p].first;
    in.cpu_b = pairs[p].second;
    in.first_ns = std::move(first[p].one_way_ns);
    in.first_converged = first[p].converged;
    in.round_trips_per_batch = first[p].round_trips_per_batch;
    in.elapsed_ms = first[p].elapsed_ns / 1e6;
    if (has_second[p]) {
      in.rechecked = true;
      in.second_ns = std::move(second[p].one_way_ns);
      in.second_converged = second[p].converged;
      in.elapsed_ms += second[p].elapsed_ns / 1e6;
    }
    PairStats s = judge_pair(in, options.precision);
    if (options.quick) s.represents = represents[p];
    unstable += s.unstable ? 1 : 0;
    multimodal += s.multimodal ? 1 : 0;
    not_converged += s.converged ? 0 : 1;
    std::size_t i = static_cast<std::size_t>(run.matrix.index_of(s.cpu_a));
    std::size_t j = static_cast<std::size_t>(run.matrix.index_of(s.cpu_b));
    run.matrix.at(i, j) = run.matrix.at(j, i) = s.reported_ns;
    run.pairs.push_back(std::move(s));
  }
  std::size_t checked = 0;
  for (const PairStats& s : run.pairs) checked += s.rechecked ? 1 : 0;
  run.matrix.stability = judge_stability(unstable, checked);
  if (options.quick) {
    // Fill every other cell from its class's representative.
    std::map<std::string, double> class_value;
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      class_value[pair_class(topology, pairs[p].first, pairs[p].second)] = run.pairs[p].reported_ns;
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      for (std::size_t j = i + 1; j < list.size(); ++j) {
        double v = class_value[pair_class(topology, list[i], list[j])];
        run.matrix.at(i, j) = run.matrix.at(j, i) = v;
      }
    }
  }

  run.line_placement =
      "a fresh page per pair and pass, mapped and first written by the initiator thread (the "
      "lower CPU of the pair), so the line starts in the initiator's cache and its NUMA node";
  if (!line_nodes.empty()) {
    std::map<int, std::vector<int>> by_node;
    for (auto [cpu, node] : line_nodes) by_node[node].push_back(cpu);
    std::string where;
    for (auto& [node, initiators] : by_node) {
      if (!where.empty()) where += "; ";
      where += "node " + std::to_string(node) + " for initiators " +
               CpuSet::from_vector(initiators).to_list();
    }
    run.line_placement += " (" + where + ")";
  }
  if (unstable) {
    run.notes.push_back(std::to_string(unstable) + " of " + std::to_string(pairs.size()) +
                        " pairs unstable: the two passes' 95% intervals do not overlap and their "
                        "medians differ by more than +-" +
                        format_ns(options.precision * 100) +
                        "%; the "
                        "matrix keeps the lower median, the JSON has both");
  }
  if (multimodal) {
    run.notes.push_back(std::to_string(multimodal) +
                        " pairs multimodal: samples fall into separated modes (see modes_ns)");
  }
  if (not_converged) {
    run.notes.push_back(std::to_string(not_converged) + " of " + std::to_string(pairs.size()) +
                        " pairs did not reach +-" + format_ns(options.precision * 100) +
                        "% within " + format_ns(options.budget_ms) + " ms per pass");
  }
  return run;
}

}  // namespace threadmap::latency
