#include "src/plan/plan_request.hpp"

#include <utility>

#include "src/latency/matrix.hpp"
#include "src/plan/isolated.hpp"
#include "src/plan/spec.hpp"

namespace threadmap::plan {
namespace {

PlannedRequest refused(Error error, PlanRequestField field) {
  PlannedRequest planned;
  planned.refused = std::move(error);
  planned.refused_field = field;
  return planned;
}

// The spec from the one form given, with the field a bad value is about; the quick form's
// policy goes to `placement` (compact when --threads comes without one).
Result<WorkloadSpec> read_spec(const PlanRequest& request, PlanRequestField& field,
                               std::optional<QuickPolicy>& placement) {
  if (!request.spec_file.empty()) {
    field = PlanRequestField::spec;
    return load_spec(request.spec_file);
  }
  if (request.pairs > 0) {
    field = PlanRequestField::pairs;
    return pairs_spec(request.pairs);
  }
  field = PlanRequestField::policy;
  auto policy = parse_quick_policy(request.policy.empty() ? "compact" : request.policy);
  if (!policy) return policy.error();
  placement = *policy;
  field = PlanRequestField::threads;
  return threads_spec(request.threads, *policy);
}

}  // namespace

PlannedRequest plan_from_request(const PlanRequest& request) {
  PlanRequestField spec_field = PlanRequestField::spec;
  std::optional<QuickPolicy> placement;
  auto spec = read_spec(request, spec_field, placement);
  if (!spec) return refused(spec.error(), spec_field);
  if (!request.allowed.empty()) spec->allowed = request.allowed;
  if (!request.reserved.empty()) spec->reserved = request.reserved;
  if (request.oversubscribe) spec->oversubscribe = true;

  std::optional<latency::Matrix> matrix;
  if (!request.latency_file.empty()) {
    auto loaded = latency::load_matrix(request.latency_file);
    if (!loaded) return refused(loaded.error(), PlanRequestField::latency);
    matrix = std::move(*loaded);
  }
  PlannedRequest planned;
  // An unstable matrix is not used (make_plan says why): this machine's topology stands in.
  if (!request.topology_file.empty() || !matrix || matrix->stability.unstable()) {
    auto loaded = request.topology_file.empty() ? Topology::load_this_machine()
                                                : Topology::load_xml(request.topology_file);
    if (!loaded)
      return refused(loaded.error(), request.topology_file.empty() ? PlanRequestField::machine
                                                                   : PlanRequestField::topology);
    planned.topology = std::move(*loaded);
  }
  PlanInputs inputs;
  inputs.topology = planned.topology ? &*planned.topology : nullptr;
  inputs.matrix = matrix ? &*matrix : nullptr;
  if (planned.topology && planned.topology->is_this_machine()) {
    auto isolated = read_isolated_cpus(request.isolated_file);
    if (!isolated) return refused(isolated.error(), PlanRequestField::machine);
    inputs.isolated = *isolated;
  }
  inputs.placement_policy = placement;
  inputs.solve.local_time_limit_s = request.time_limit_s;
  inputs.solve.exact_time_limit_s = request.time_limit_s;
  inputs.solve.whole_time_limit_s = request.time_limit_s;
  inputs.solve.seed = request.seed;
  auto plan = make_plan(*spec, inputs);
  if (!plan) return refused(plan.error(), PlanRequestField::plan);
  planned.plan = std::move(*plan);
  return planned;
}

}  // namespace threadmap::plan
