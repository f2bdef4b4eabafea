// Collecting the machine report: each part is produced in turn, timed, and on failure kept as
// unavailable with the library's own error message, so one missing piece never hides the rest.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "src/core/machine_state.hpp"
#include "src/experiments/registry.hpp"
#include "src/latency/analysis.hpp"
#include "src/latency/matrix_files.hpp"
#include "src/latency/matrix_mismatch.hpp"
#include "src/os/host.hpp"
#include "src/os/monotonic_clock.hpp"
#include "src/report/report_advice.hpp"
#include "src/report/report_budget.hpp"
#include "src/report/report_data.hpp"

namespace threadmap::report {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Names the machine a loaded matrix comes from, and takes it for another machine when the file
// names another host than this one (the CPU set and model are checked by
// matrix_mismatch_notes): what the page says about it is then kept apart from this machine.
void label_loaded_machine(LatencyPart& part, const std::string& this_host) {
  const latency::Matrix& m = part.matrix;
  part.loaded_machine = m.cpu_model.empty() ? "machine unknown" : m.cpu_model;
  if (!m.host.empty()) part.loaded_machine += " (host " + m.host + ")";
  part.loaded_machine += ", " + std::to_string(m.size()) + " CPUs";
  if (!m.host.empty() && !this_host.empty() && m.host != this_host) {
    part.describes_this_machine = false;
    part.notes.push_back("the latency matrix was measured on host '" + m.host +
                         "', this is host '" + this_host + "'");
  }
}

// Measures (or loads) the matrix and analyses it. Only an unreadable --latency file is an error.
// `seconds` is the latency part's share of the budget.
Status collect_latency(MachineReport& rep, const ReportOptions& o, const CpuSet& usable,
                       double seconds) {
  LatencyPart& part = rep.latency;
  const Topology* topo = rep.topology ? &*rep.topology : nullptr;
  if (!o.latency_file.empty()) {
    auto loaded = latency::load_matrix(o.latency_file);
    if (!loaded) return loaded.error().about("latency_file");
    part.matrix = std::move(*loaded);
    part.how = "loaded from " + o.latency_file + " (not measured by this report)";
    if (topo) {
      part.notes = latency::matrix_mismatch_notes(part.matrix, *topo);
      part.describes_this_machine = part.notes.empty();
    }
    label_loaded_machine(part, rep.host);
  } else if (!topo) {
    part.status = {false, "the topology of this machine could not be read", 0};
    return {};
  } else if (usable.count() < 2) {
    part.status = {false, "needs two usable CPUs; this process may use only " + usable.to_list(),
                   0};
    // Why it may use only one is the first thing a reader needs (srun/mpirun bound it).
    if (rep.binding && rep.binding->narrower)
      part.status.reason += " (" + rep.binding->finding + ")";
    return {};
  } else {
    latency::MeasureOptions mo;
    mo.cpus = usable;
    mo.quick = o.quick;
    // Budget per pair and pass so that the whole matrix (two passes) fits the share.
    const double n = static_cast<double>(usable.count());
    const double pair_passes = o.quick ? 2 * std::max(1.0, n) : n * (n - 1);
    mo.budget_ms = std::clamp(seconds * 1000 / pair_passes, 2.0, o.quick ? 50.0 : 100.0);
    mo.progress = o.latency_progress;
    // Watched as `threadmap latency` watches it: values measured beside others' work are
    // marked on the page and in the JSON.
    MachineWatch watch;
    watch.start(usable);
    auto run = latency::measure(mo, *topo);
    const MachineState state = watch.finish();
    if (!run) {
      part.status = {false, run.error().message, 0};
      return {};
    }
    if (state.busy()) run->matrix.measured_busy = latency::busy_summary(state.summary);
    part.measurement = std::move(*run);
    part.matrix = part.measurement->matrix;
    part.how = std::string("measured on this machine: method ") +
               latency::method_name(part.measurement->method) +
               ", one-way ns = per pair the median of timed batches of round trips / 2, " +
               "at most " + std::to_string(static_cast<int>(mo.budget_ms)) +
               " ms per pair and pass";
    part.notes = part.measurement->notes;
  }
  // A matrix of another machine is analysed from its latencies alone: comparing it with this
  // machine's topology, or ordering it by that topology, would mix two machines.
  latency::Analysis analysis =
      latency::analyse(part.matrix, part.describes_this_machine ? topo : nullptr);
  // A structure that did not hold still is the first thing the page says about latency; the
  // domains were then not inferred (latency::analyse) and the advice falls back to the topology.
  part.stability_state = analysis.stability.state;
  if (analysis.stability.unstable()) part.stability_finding = analysis.stability.reason;
  part.domains = std::move(analysis.domains);
  part.numbering = std::move(analysis.numbering);
  part.comparison = std::move(analysis.comparison);
  part.order = std::move(analysis.order);
  return {};
}

// Runs one bench of the table with what the report already knows: its latency matrix, when
// it describes this machine, chooses the ping-pong pairs (no second measurement).
BenchResult run_one_bench(const experiments::BenchEntry& bench, const Topology& topo,
                          const ReportOptions& o, const experiments::BenchOptions& base,
                          const LatencyPart& lat, PartStatus& status) {
  experiments::BenchRequest request;
  request.options = base;
  request.spawn_tools = o.spawn_tools;
  request.measure_latencies = false;
  if (lat.status.available && lat.describes_this_machine) {
    request.latency_matrix = &lat.matrix;
    request.latency_source = lat.measurement ? "measured by this report" : lat.matrix.source;
  }
  Result<BenchResult> r = bench.run(topo, request);
  if (!r) {
    status = {false, r.error().message, 0};
    return experiments::unavailable_bench(bench.name, "", r.error().message);
  }
  if (!r->available) status = {false, r->unavailable_reason, 0};
  return *r;
}

// "[3/9] what": the progress lines of one report, numbered.
struct Steps {
  const ReportOptions& o;
  std::size_t total;
  std::size_t done = 0;
  void say(const std::string& what) {
    ++done;
    if (o.progress)
      o.progress("[" + std::to_string(done) + "/" + std::to_string(total) + "] " + what);
  }
};

double share_of(const std::vector<PartShare>& shares, const std::string& part) {
  for (const PartShare& p : shares)
    if (p.part == part) return p.share_s;
  return 0.0;
}

// The topology first, quietly: a launcher's binding is the first line the user reads, before
// any progress, since every number that follows is about the CPUs it left us. The CPUs the
// benches may use, none when the topology could not be read.
CpuSet collect_topology(MachineReport& rep, const ReportOptions& o, Steps& steps) {
  const Clock::time_point t = Clock::now();
  CpuSet usable;
  auto topo = Topology::load_this_machine();
  if (topo) {
    rep.binding = this_process_binding(*topo);
    if (!rep.binding->finding.empty() && o.warning) o.warning(rep.binding->finding);
  }
  steps.say("reading the topology (hwloc)");
  if (topo) {
    rep.topology = *topo;
    rep.devices = device_inventory(*topo, /*management=*/true);
    if (auto u = experiments::usable_cpus(*topo); u)
      usable = *u;
    else
      rep.topology_status = {false, u.error().message, 0};
  } else {
    rep.topology_status = {false, topo.error().message, 0};
  }
  rep.usable_cpus = usable.to_list();
  rep.topology_status.seconds = seconds_since(t);
  return usable;
}

// Every bench in turn, each with its share of the budget and what the parts before left unused.
void collect_benches(MachineReport& rep, const ReportOptions& o, const CpuSet& usable,
                     const std::vector<PartShare>& shares, Clock::time_point start, Steps& steps) {
  experiments::BenchOptions base;
  base.quick = o.quick;
  base.runs = o.runs > 0 ? o.runs : (o.quick ? 3 : 5);
  for (const experiments::BenchEntry& bench : experiments::benches()) {
    const std::string name = bench.name;
    steps.say("bench " + name);
    const Clock::time_point t = Clock::now();
    PartStatus status;
    base.share_s = share_with_carry(shares, "bench " + name, seconds_since(start), rep.budget_s);
    if (!rep.topology || usable.empty()) {
      status = {false, "the topology of this machine could not be read", 0};
      rep.benches.push_back(experiments::unavailable_bench(name, "", status.reason));
    } else {
      rep.benches.push_back(run_one_bench(bench, *rep.topology, o, base, rep.latency, status));
    }
    status.seconds = seconds_since(t);
    status.share_s = share_of(shares, "bench " + name);
    status.given_s = base.share_s;
    rep.bench_status.push_back(status);
  }
}

}  // namespace

Result<MachineReport> collect_report(const ReportOptions& o) {
  const Clock::time_point start = Clock::now();
  MachineReport rep;
  rep.generated_utc = os::utc_timestamp();
  rep.threadmap_version = o.version;
  rep.quick = o.quick;
  rep.host = os::host_name();
  rep.command_line = o.command_line;
  rep.budget_s = o.budget_s > 0 ? o.budget_s : default_budget_s(o.quick);
  const std::vector<PartShare> shares = split_budget(rep.budget_s, experiments::bench_names());
  Steps steps{o, 3 + experiments::benches().size()};

  const CpuSet usable = collect_topology(rep, o, steps);
  rep.topology_status.share_s = share_of(shares, "topology");

  // The state of the machine over everything measured (latency and benches): a busy or
  // virtual machine is said at the top of the page, beside the numbers it affects.
  MachineWatch watch;
  const bool watching = rep.topology && !usable.empty();
  if (watching) watch.start(usable);

  steps.say(o.latency_file.empty() ? "measuring core-to-core latency"
                                   : "loading " + o.latency_file);
  Clock::time_point t = Clock::now();
  if (Status st = collect_latency(rep, o, usable, share_of(shares, "latency")); !st)
    return st.error();
  rep.latency.status.seconds = seconds_since(t);
  rep.latency.status.share_s = share_of(shares, "latency");

  collect_benches(rep, o, usable, shares, start, steps);
  if (watching) rep.machine_state = watch.finish();

  steps.say("recommending placements");
  t = Clock::now();
  rep.advice = make_advice(rep, usable);
  rep.advice.status.seconds = seconds_since(t);
  rep.advice.status.share_s = share_of(shares, "recommendations");
  rep.total_seconds = seconds_since(start);
  return rep;
}

}  // namespace threadmap::report
