#include "src/latency/latency_run.hpp"

namespace threadmap::latency {
namespace {

// Records which input an error is about and passes the error on.
Error blame(LatencyField field, LatencyField* failed_field, Error error) {
  if (failed_field) *failed_field = field;
  return error;
}

}  // namespace

Result<LatencyRun> run_latency(const LatencyRequest& request, LatencyField* failed_field) {
  const bool measuring = request.load_file.empty();
  if (!measuring && (!request.cpus.empty() || request.measure.quick))
    return Error::invalid(
        "choosing CPUs and quick mode apply to a measurement, not to a saved "
        "matrix");

  // The topology used for ordering and comparison: the XML when given, else this machine when
  // measuring; a loaded file without a topology is analysed from its latencies alone.
  LatencyRun run;
  if (!request.topology_file.empty()) {
    auto topo = Topology::load_xml(request.topology_file);
    if (!topo) return blame(LatencyField::topology_file, failed_field, topo.error());
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
      auto set = here->resolve(request.cpus);
      if (!set) return blame(LatencyField::cpus, failed_field, set.error());
      // An empty set would otherwise mean "all CPUs" to measure().
      if (set->empty())
        return blame(LatencyField::cpus, failed_field,
                     Error::invalid("the CPU set '" + request.cpus + "' is empty"));
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
      return Error{measured.error().code, measured.error().message + " (" + binding.finding + ")"};
    }
    run.measurement = std::move(*measured);
    run.matrix = run.measurement->matrix;
    if (!run.topology) {
      run.topology = std::move(*here);
      run.topology_source = "hwloc, this machine";
    }
  } else {
    auto loaded = load_matrix(request.load_file);
    if (!loaded) return blame(LatencyField::load_file, failed_field, loaded.error());
    run.matrix = std::move(*loaded);
  }

  run.analysis = analyse(run.matrix, run.topology ? &*run.topology : nullptr, request.row_order);
  return run;
}

}  // namespace threadmap::latency
