// threadmap plan (--spec FILE | --pairs N | --threads N --policy P) [--topology FILE.xml]
//                [--latency FILE] [--json | --export FORMAT] [--output FILE] ...
#include <algorithm>
#include <memory>
#include <optional>

#include "src/cli/command.hpp"
#include "src/cli/outputs.hpp"
#include "src/cluster/rank_export.hpp"
#include "src/cluster/rank_plan.hpp"
#include "src/plan/export.hpp"
#include "src/plan/plan_file.hpp"
#include "src/plan/plan_request.hpp"
#include "src/plan/spec.hpp"
#include "src/render/gpu_plan_view.hpp"
#include "src/render/job_view.hpp"
#include "src/render/plan_view.hpp"

namespace threadmap::cli {
namespace {

struct PlanOptions {
  std::string spec_file;
  int pairs = 0;
  int threads = 0;
  std::string policy;
  std::string topology_file;
  std::string latency_file;
  std::string allowed;
  bool allowed_given = false;  // --allowed on the command line, even as
  std::string reserved;
  bool oversubscribe = false;
  bool json = false;
  std::string export_format;
  int ranks = 0;     // --ranks N: the shares of N ranks instead of a thread plan
  std::string host;  // --host NAME: the node a rankfile names
  int gpus = 0;      // --gpus [N]: with --ranks, N GPUs per rank
  std::string output;
  double time_limit_s = 1.5;
  std::uint64_t seed = 1;
};

// A refusal of the thread plan with the flag its value came from; the spec file, the matrix and
// the topology name themselves in their messages, the quick forms' numbers do not.
Error with_flag(const Error& refused, plan::PlanRequestField field) {
  switch (field) {
    case plan::PlanRequestField::pairs:
      return refused.with_context("bad --pairs");
    case plan::PlanRequestField::threads:
      return refused.with_context("bad --threads");
    case plan::PlanRequestField::policy:
      return refused.with_context("bad --policy");
    case plan::PlanRequestField::spec:
    case plan::PlanRequestField::latency:
    case plan::PlanRequestField::topology:
    case plan::PlanRequestField::machine:
    case plan::PlanRequestField::plan:
      break;
  }
  return refused;
}

// plan --ranks N: the node's CPUs (or --topology's) split into N rank shares by the library,
// printed, or exported as an srun line or an Open MPI rankfile.
// What --export takes: a plan's formats, and with --ranks the launchers' (slurm, rankfile,
// wrapper).
std::vector<std::string> export_names() {
  std::vector<std::string> names = plan::export_format_names();
  for (const std::string& n : cluster::rank_export_names())
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  return names;
}

int run_plan_ranks(const PlanOptions& opt) {
  cluster::RankPlanRequest request;
  if (!opt.export_format.empty()) {
    auto parsed = cluster::parse_rank_export(opt.export_format);
    if (!parsed) return usage_error(parsed.error().with_context("bad --export"));
    request.format = *parsed;
  }
  if (!opt.latency_file.empty() || !opt.reserved.empty() || !opt.output.empty())
    return usage_error(std::string(
        "plan --ranks splits a node's CPUs: --latency, --reserved and --output do not apply"));
  request.ranks = opt.ranks;
  request.topology_file = opt.topology_file;
  request.allowed = opt.allowed;
  request.host = opt.host;
  request.gpus = opt.gpus;
  cluster::RankPlan planned = cluster::plan_ranks(request);
  if (planned.refused) {
    switch (planned.refused_field) {
      case cluster::RankPlanField::allowed:
        return usage_error(planned.refused->with_context("bad --allowed"));
      case cluster::RankPlanField::ranks:
        return usage_error(planned.refused->with_context("bad --ranks"));
      case cluster::RankPlanField::gpus:
        return usage_error(planned.refused->with_context("bad --gpus"));
      case cluster::RankPlanField::topology:
        break;
    }
    return fail(*planned.refused);
  }
  if (request.format)
    print(planned.exported);
  else if (opt.json)
    print((planned.gpu_ranks.empty() ? render::rank_shares_json(planned.shares)
                                     : render::gpu_ranks_json(planned.gpu_ranks))
              .dump(2) +
          "\n");
  else if (!planned.gpu_ranks.empty())
    print(render::gpu_ranks_text(planned.gpu_ranks));
  else
    print(render::rank_shares_text(planned.shares));
  return 0;
}

int run_plan(const PlanOptions& opt) {
  if (opt.ranks > 0) {
    if (!opt.spec_file.empty() || opt.pairs > 0 || opt.threads > 0)
      return usage_error(
          std::string("--ranks N is a form of its own: no --spec, --pairs or --threads"));
    return run_plan_ranks(opt);
  }
  if (!opt.host.empty()) return usage_error(std::string("--host goes with --ranks"));
  if (opt.gpus > 0) return usage_error(std::string("--gpus goes with --ranks N"));
  // Every check of the command line is a usage error (exit 2), whatever the subcommand.
  std::optional<plan::ExportFormat> format;
  if (!opt.export_format.empty()) {
    auto parsed = plan::parse_export_format(opt.export_format);
    if (!parsed) {
      if (cluster::parse_rank_export(opt.export_format))
        return usage_error("bad --export: " + opt.export_format +
                           " exports rank shares: it needs --ranks N");
      return usage_error(parsed.error().with_context("bad --export").message +
                         " (with --ranks N: slurm or rankfile)");
    }
    format = *parsed;
  }
  const int forms = !opt.spec_file.empty() + (opt.pairs > 0) + (opt.threads > 0);
  if (forms != 1)
    return usage_error(
        std::string("plan needs exactly one of --spec FILE, --pairs N, --threads N, --ranks N"));
  if (!opt.policy.empty() && opt.threads <= 0)
    return usage_error(std::string("--policy goes with --threads N"));
  if (opt.allowed_given && opt.allowed.empty())
    return usage_error(std::string("bad --allowed: the CPU set is empty"));
  Outputs out;
  out.declare("--output", &opt.output);
  if (auto st = out.check(); !st) return reject(st.error());
  plan::PlanRequest request;
  request.spec_file = opt.spec_file;
  request.pairs = opt.pairs;
  request.threads = opt.threads;
  request.policy = opt.policy;
  request.topology_file = opt.topology_file;
  request.latency_file = opt.latency_file;
  request.allowed = opt.allowed;
  request.reserved = opt.reserved;
  request.oversubscribe = opt.oversubscribe;
  request.time_limit_s = opt.time_limit_s;
  request.seed = opt.seed;
  plan::PlannedRequest planned = plan::plan_from_request(request);
  if (planned.refused) return fail(with_flag(*planned.refused, planned.refused_field));

  const plan::Plan& made = planned.plan;
  out.set(&opt.output, plan::plan_json(made).dump(2) + "\n");
  if (auto st = out.commit(); !st) return fail(st.error());
  if (format)
    print(plan::export_plan(made, *format, planned.topology ? &*planned.topology : nullptr));
  else if (opt.json) {
    if (opt.output.empty())  // with -o FILE the JSON goes there, once
      print(plan::plan_json(made).dump(2) + "\n");
  } else {
    print(render::plan_text(made));
  }
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<PlanOptions>();
  auto* sub = app.add_subcommand(
      "plan", "Plan thread placement from a workload spec, the topology and measured latencies");
  auto* spec = sub->add_option("--spec", opt->spec_file, "Workload spec JSON (see docs/plan.md)");
  auto* pairs = sub->add_option("--pairs", opt->pairs,
                                "Quick form: N pairs of threads that talk to each other")
                    ->check(CLI::Range(1, 1000000));
  auto* threads =
      sub->add_option("--threads", opt->threads, "Quick form: N threads placed by --policy")
          ->check(CLI::Range(1, 1000000));
  sub->add_option("--policy", opt->policy,
                  "With --threads: compact, scatter or round-robin (the CPUs `threadmap run "
                  "--policy` pins), or spread (hwloc-distrib)")
      ->check(fixed_values(plan::quick_policy_names()));
  spec->excludes(pairs)->excludes(threads);
  pairs->excludes(threads);
  sub->add_option("--topology", opt->topology_file,
                  "Plan for another machine: hwloc XML (lstopo --of xml)");
  sub->add_option("--latency", opt->latency_file,
                  "Measured latency matrix (threadmap latency JSON/CSV or nviennot CSV); alone, it "
                  "stands for the machine");
  auto* allowed = sub->add_option("--allowed", opt->allowed,
                                  "CPUs to plan on (overrides the spec's constraints.allowed)");
  sub->add_option("--reserved", opt->reserved,
                  "CPUs to keep free (overrides constraints.reserved)");
  sub->add_flag("--oversubscribe", opt->oversubscribe,
                "Let threads share CPUs when there are too few");
  auto* json = sub->add_flag("--json", opt->json, "Print the plan JSON (schema threadmap.plan/1)");
  sub->add_option("--export", opt->export_format,
                  "Print as taskset|numactl|omp|gomp|kmp|likwid|slurm|systemd (with --ranks: "
                  "slurm|rankfile|wrapper)")
      ->check(fixed_values(export_names()))
      ->excludes(json);
  sub->add_option("--ranks", opt->ranks,
                  "Split the node's CPUs into N rank shares (NUMA nodes, L3, cores); with "
                  "--export slurm|rankfile|wrapper, print them for srun, mpirun or a shell wrapper")
      ->check(CLI::Range(1, 1000000));
  auto* gpus = sub->add_option("--gpus", opt->gpus,
                               "With --ranks: N GPUs per rank (default 1), each rank next to its "
                               "GPUs (bus order), its NIC named (docs/gpu.md)")
                   ->expected(0, 1)
                   ->default_str("1")
                   ->check(CLI::Range(1, 64));
  sub->add_option("--host", opt->host,
                  "With --ranks --export rankfile: the node's name "
                  "(default: this host)");
  sub->add_option("-o,--output", opt->output,
                  "Also write the plan JSON to FILE (for threadmap run --plan)");
  sub->add_option("--time-limit", opt->time_limit_s,
                  "Seconds the whole search may take, every solver together (default 1.5)")
      ->check(CLI::Range(0.001, 3600.0));
  sub->add_option("--seed", opt->seed, "Local search seed (default 1; same seed, same plan)")
      ->check(whole_number());
  sub->callback([&selected, opt, allowed, gpus] {
    opt->allowed_given = allowed->count() > 0;
    if (gpus->count() > 0 && opt->gpus <= 0) opt->gpus = 1;
    selected = [opt] { return run_plan(*opt); };
  });
}

}  // namespace threadmap::cli
