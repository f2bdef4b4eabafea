#include "src/latency/latency_run.hpp"

#include "src/core/given_cpus.hpp"
#include "src/latency/matrix_files.hpp"

namespace threadmap::latency {

Result<LatencyRequest> latency_request(const LatencyOptions& o) {
  if (!o.load_file.empty()) {
    // A saved matrix is analysed as it is: a choice of how to measure would be ignored.
    for (auto [member, given] :
         {std::pair{"cpus", !o.cpus.empty()}, std::pair{"quick", o.quick},
          std::pair{"method", o.method.has_value()},
          std::pair{"precision_pct", o.precision_pct.has_value()},
          std::pair{"budget_ms", o.budget_ms.has_value()}, std::pair{"no_recheck", o.no_recheck},
          std::pair{"seed", o.seed.has_value()}})
      if (given)
        return Error::bad_input(member,
                                "it chooses how to measure, and a saved matrix is not measured");
  }
  LatencyRequest request;
  request.load_file = o.load_file;
  request.topology_file = o.topology_file;
  request.cpus = o.cpus;
  auto method = parse_method(o.method.value_or("cas"));
  if (!method) return method.error().as_bad_input("method");
  request.measure.method = *method;
  request.measure.precision = o.precision_pct.value_or(3) / 100.0;
  request.measure.budget_ms = o.budget_ms.value_or(100);
  request.measure.quick = o.quick;
  request.measure.recheck = !o.no_recheck;
  request.measure.seed = o.seed.value_or(0);
  request.row_order = o.numeric_order ? RowOrder::numeric : RowOrder::topology;
  return request;
}

Result<LatencyRun> run_latency(const LatencyRequest& request) {
  const bool measuring = request.load_file.empty();
  // The topology used for ordering and comparison: the XML when given, else this machine when
  // measuring; a loaded file without a topology is analysed from its latencies alone.
  LatencyRun run;
  if (!request.topology_file.empty()) {
    auto topo = Topology::load_xml(request.topology_file);
    if (!topo) return topo.error().about("topology_file");
    run.topology = std::move(*topo);
    run.topology_source = request.topology_file;
  }

  if (measuring) {
    // The measurement always runs on this machine, whatever topology orders the result.
    auto here = Topology::load_this_machine();
    if (!here) return here.error();
    MeasureOptions mo = request.measure;
    mo.cpus = CpuSet{};
    if (!request.cpus.empty()) {
      // An empty set would otherwise mean "all CPUs" to measure().
      auto set = resolve_given_cpus(*here, request.cpus, "cpus");
      if (!set) return set.error();
      mo.cpus = *set;
    }
    // What the machine did around the measurement goes with it, so a reader can tell a result
    // from the day: the neighbours' use of the measured CPUs just before, steal and runnable
    // tasks over the run.
    // A launcher that bound us to a corner of the machine is said above the matrix (and in
    // the error when that corner is too small to measure); CPUs the user chose are theirs.
    const ProcessBinding binding = this_process_binding(*here);
    if (request.cpus.empty()) run.binding = binding;
    MachineWatch watch;
    watch.start(mo.cpus.empty() ? here->allowed_cpus() : mo.cpus);
    auto measured = measure(mo, *here);
    run.machine = watch.finish();
    if (!measured) {
      if (binding.finding.empty() || !request.cpus.empty()) return measured.error();
      Error bound = measured.error();  // its member and fault kept
      bound.message += " (" + binding.finding + ")";
      return bound;
    }
    // A busy machine goes with the matrix (and its JSON), so everyone who shows or plans from
    // it can say its values include others' load.
    if (run.machine->busy()) measured->matrix.measured_busy = busy_summary(run.machine->summary);
    run.measurement = std::move(*measured);
    run.matrix = run.measurement->matrix;
    if (!run.topology) {
      run.topology = std::move(*here);
      run.topology_source = "hwloc, this machine";
    }
  } else {
    auto loaded = load_matrix(request.load_file);
    if (!loaded) return loaded.error().about("load_file");
    run.matrix = std::move(*loaded);
  }

  run.analysis = analyse(run.matrix, run.topology ? &*run.topology : nullptr, request.row_order);
  return run;
}

}  // namespace threadmap::latency
