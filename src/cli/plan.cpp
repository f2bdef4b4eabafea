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

// What each member of the plan options is called on the command line (plan::PlanOptions).
constexpr FlagOf kPlanFlags[] = {
    {"spec_file", "--spec"},
    {"pairs", "--pairs"},
    {"threads", "--threads"},
    {"policy", "--policy"},
    {"topology_file", "--topology"},
    {"latency_file", "--latency"},
    {"allowed", "--allowed"},
    {"reserved", "--reserved"},
    {"export_format", "--export"},
    {"ranks", "--ranks"},
    {"host", "--host"},
    {"gpus", "--gpus"},
    {"gpu_visibility", "--gpu-visibility"},
    {"output", "--output"},
};

// What --export takes: a plan's formats, and with --ranks the launchers' (slurm, rankfile,
// wrapper).
std::vector<std::string> export_names() {
  std::vector<std::string> names = plan::export_format_names();
  for (const std::string& n : cluster::rank_export_names())
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  return names;
}

// plan --ranks N: the node's CPUs (or --topology's) split into N rank shares by the library,
// printed, or exported as an srun line or an Open MPI rankfile.

int print_rank_plan(const plan::PlanOptions& opt, const cluster::RankPlanRequest& request) {
  auto planned = cluster::plan_ranks(request);
  if (!planned) return fail(planned.error(), kPlanFlags);
  if (request.format)
    print(planned->exported);
  else if (opt.json)
    print((planned->gpu_ranks.empty() ? render::rank_shares_json(planned->shares)
                                      : render::gpu_ranks_json(planned->gpu_ranks))
              .dump(2) +
          "\n");
  else if (!planned->gpu_ranks.empty())
    print(render::gpu_ranks_text(planned->gpu_ranks));
  else
    print(render::rank_shares_text(planned->shares));
  return 0;
}

int print_thread_plan(const plan::PlanOptions& opt, const plan::PlanRequest& request) {
  Outputs out;
  out.declare("--output", &opt.output);
  if (auto st = out.check(); !st) return fail(st.error());
  auto planned = plan::plan_from_request(request);
  if (!planned) return fail(planned.error(), kPlanFlags);
  const plan::Plan& made = planned->plan;
  out.set(&opt.output, plan::plan_json(made).dump(2) + "\n");
  if (auto st = out.commit(); !st) return fail(st.error());
  if (request.format)
    print(plan::export_plan(made, *request.format,
                            planned->topology ? &*planned->topology : nullptr));
  else if (opt.json) {
    if (opt.output.empty())  // with -o FILE the JSON goes there, once
      print(plan::plan_json(made).dump(2) + "\n");
  } else {
    print(render::plan_text(made));
  }
  return 0;
}

int run_plan(const plan::PlanOptions& opt) {
  auto command = cluster::plan_command_request(opt);
  if (!command) return fail(command.error(), kPlanFlags);
  if (command->rank_plan) return print_rank_plan(opt, *command->rank_plan);
  return print_thread_plan(opt, *command->thread_plan);
}

}  // namespace

void add_plan_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<plan::PlanOptions>();
  auto* sub = app.add_subcommand(
      "plan", "Plan thread placement from a workload spec, the topology and measured latencies");
  sub->add_option("--spec", opt->spec_file, "Workload spec JSON (see docs/plan.md)");
  sub->add_option("--pairs", opt->pairs, "Quick form: N pairs of threads that talk to each other")
      ->check(CLI::Range(1, 1000000));
  sub->add_option("--threads", opt->threads, "Quick form: N threads placed by --policy")
      ->check(CLI::Range(1, 1000000));
  sub->add_option("--policy", opt->policy,
                  "With --threads: compact, scatter or round-robin (the CPUs `threadmap run "
                  "--policy` pins), or spread (hwloc-distrib)")
      ->check(fixed_values(plan::quick_policy_names()));
  sub->add_option("--topology", opt->topology_file,
                  "Plan for another machine: hwloc XML (lstopo --of xml)");
  sub->add_option("--latency", opt->latency_file,
                  "Measured latency matrix (threadmap latency JSON/CSV or nviennot CSV); alone, it "
                  "stands for the machine");
  sub->add_option("--allowed", opt->allowed,
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
                               "GPUs (the vendor runtime's order), its NIC named (docs/gpu.md)")
                   ->expected(0, 1)
                   ->default_str("1")
                   ->check(CLI::Range(1, 64));
  sub->add_option("--gpu-visibility", opt->gpu_visibility,
                  "With --gpus: narrow (default: each rank sees only its GPUs) or all-own-first "
                  "(every GPU, the rank's first: CUDA IPC / NCCL P2P; docs/gpu.md)")
      ->check(fixed_values({"narrow", "all-own-first"}));
  sub->add_option("--host", opt->host,
                  "With --ranks --export rankfile: the node's name "
                  "(default: this host)");
  sub->add_option("-o,--output", opt->output,
                  "Also write the plan JSON to FILE (for threadmap run --plan)");
  sub->add_option("--time-limit", opt->time_limit_s,
                  "Seconds the whole search may take, every solver together (default 1.5)")
      ->check(CLI::Range(0.001, 3600.0));
  sub->add_option("--min-steps", opt->min_steps,
                  "Moves the search tries before --time-limit may stop it (default 300000; 0: "
                  "the time limit alone)")
      ->check(whole_number());
  sub->add_option("--seed", opt->seed, "Local search seed (default 1; same seed, same plan)")
      ->check(whole_number());
  sub->callback([&selected, opt, gpus] {
    // --gpus alone means one GPU per rank (CLI11 leaves the value at its default_str).
    if (gpus->count() > 0 && opt->gpus <= 0) opt->gpus = 1;
    selected = [opt] { return run_plan(*opt); };
  });
}

}  // namespace threadmap::cli
