#include "src/plan/plan_request.hpp"

#include <utility>

#include "src/core/given_cpus.hpp"
#include "src/latency/matrix.hpp"
#include "src/plan/isolated.hpp"
#include "src/plan/spec.hpp"

namespace threadmap::plan {
namespace {

// The spec from the one form given; the quick form's policy goes to `placement` (compact when
// the thread count comes without one). A spec file that cannot be read or used is the work's
// fault; a count or policy the quick form refuses is the value's.
Result<WorkloadSpec> read_spec(const PlanRequest& request, std::optional<QuickPolicy>& placement) {
  if (!request.spec_file.empty()) {
    auto spec = load_spec(request.spec_file);
    if (!spec) return spec.error().about("spec_file");
    return spec;
  }
  if (request.pairs > 0) {
    auto spec = pairs_spec(request.pairs);
    if (!spec) return spec.error().as_bad_input("pairs");
    return spec;
  }
  auto policy = parse_quick_policy(request.policy.empty() ? "compact" : request.policy);
  if (!policy) return policy.error().as_bad_input("policy");
  placement = *policy;
  auto spec = threads_spec(request.threads, *policy);
  if (!spec) return spec.error().as_bad_input("threads");
  return spec;
}

// The CPU sets given on the command line, resolved on the topology planned for: a CPU it lacks
// (or an allowed set with none) is the value's fault, said before the planner names the
// constraint it overrides.
Status check_cpu_sets(const PlanRequest& request, const Topology& topology) {
  if (!request.allowed.empty())
    if (auto cpus = resolve_given_cpus(topology, request.allowed, "allowed"); !cpus)
      return cpus.error();
  if (!request.reserved.empty())
    if (auto cpus = topology.resolve(request.reserved); !cpus)
      return cpus.error().as_bad_input("reserved");
  return {};
}

}  // namespace

Status check_allowed_given(const std::optional<std::string>& allowed) {
  if (allowed && allowed->empty()) return Error::bad_input("allowed", "the CPU set is empty");
  return {};
}

Result<PlanRequest> plan_request(const PlanOptions& o) {
  if (o.ranks > 0)
    return Error::bad_input("ranks", "rank shares are a form of their own, not a thread plan");
  if (!o.host.empty())
    return Error::bad_input("host", "a node name is for rank shares: it needs a rank count");
  if (o.gpus > 0)
    return Error::bad_input("gpus", "GPUs per rank are for rank shares: they need a rank count");
  if (!o.gpu_visibility.empty())
    return Error::bad_input("gpu_visibility",
                            "which GPUs a rank's program sees is for rank shares with GPUs");
  PlanRequest request;
  if (!o.export_format.empty()) {
    auto format = parse_export_format(o.export_format);
    if (!format) return format.error().as_bad_input("export_format");
    request.format = *format;
  }
  const int forms = !o.spec_file.empty() + (o.pairs > 0) + (o.threads > 0);
  if (forms == 0)
    return Error::bad_input("",
                            "a plan needs exactly one of a spec file, a number of pairs, a "
                            "number of threads or a number of ranks");
  if (forms > 1)
    return Error::bad_input(o.threads > 0 ? "threads" : "pairs",
                            "a plan needs exactly one of a spec file, a number of pairs or a "
                            "number of threads");
  if (o.policy && o.threads <= 0)
    return Error::bad_input("policy", "a policy places a number of threads; none was given");
  if (auto st = check_allowed_given(o.allowed); !st) return st.error();
  request.spec_file = o.spec_file;
  request.pairs = o.pairs;
  request.threads = o.threads;
  request.policy = o.policy.value_or("");
  request.topology_file = o.topology_file;
  request.latency_file = o.latency_file;
  request.allowed = o.allowed.value_or("");
  request.reserved = o.reserved;
  request.oversubscribe = o.oversubscribe;
  request.time_limit_s = o.time_limit_s.value_or(1.5);
  request.min_steps = o.min_steps.value_or(kDefaultMinSteps);
  request.seed = o.seed.value_or(1);
  return request;
}

Result<PlannedRequest> plan_from_request(const PlanRequest& request) {
  std::optional<QuickPolicy> placement;
  auto spec = read_spec(request, placement);
  if (!spec) return spec.error();
  if (!request.allowed.empty()) spec->allowed = request.allowed;
  if (!request.reserved.empty()) spec->reserved = request.reserved;
  if (request.oversubscribe) spec->oversubscribe = true;

  std::optional<latency::Matrix> matrix;
  if (!request.latency_file.empty()) {
    auto loaded = latency::load_matrix(request.latency_file);
    if (!loaded) return loaded.error().about("latency_file");
    matrix = std::move(*loaded);
  }
  PlannedRequest planned;
  // An unstable matrix is not used (make_plan says why): this machine's topology stands in.
  if (!request.topology_file.empty() || !matrix || matrix->stability.unstable()) {
    if (request.topology_file.empty()) {
      auto loaded = Topology::load_this_machine();
      if (!loaded) return loaded.error();
      planned.topology = std::move(*loaded);
    } else {
      auto loaded = Topology::load_xml(request.topology_file);
      if (!loaded) return loaded.error().about("topology_file");
      planned.topology = std::move(*loaded);
    }
    if (auto st = check_cpu_sets(request, *planned.topology); !st) return st.error();
  }
  PlanInputs inputs;
  inputs.topology = planned.topology ? &*planned.topology : nullptr;
  inputs.matrix = matrix ? &*matrix : nullptr;
  if (planned.topology && planned.topology->is_this_machine()) {
    auto isolated = read_isolated_cpus(request.isolated_file);
    if (!isolated) return isolated.error();
    inputs.isolated = *isolated;
  }
  inputs.placement_policy = placement;
  inputs.solve.local_time_limit_s = request.time_limit_s;
  inputs.solve.exact_time_limit_s = request.time_limit_s;
  inputs.solve.whole_time_limit_s = request.time_limit_s;
  inputs.solve.min_steps = request.min_steps;
  inputs.solve.seed = request.seed;
  auto plan = make_plan(*spec, inputs);
  if (!plan) return plan.error();
  planned.plan = std::move(*plan);
  return planned;
}

}  // namespace threadmap::plan
