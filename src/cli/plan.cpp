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

// `plan` as given, and its table from member to flag (filled as the flags are declared).
struct PlanCli {
  plan::PlanOptions given;
  FlagTable flags;
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

int print_rank_plan(const PlanCli& cli, const cluster::RankPlanRequest& request) {
  const plan::PlanOptions& opt = cli.given;
  auto planned = cluster::plan_ranks(request);
  if (!planned) return fail(planned.error(), cli.flags);
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

int print_thread_plan(const PlanCli& cli, const plan::PlanRequest& request) {
  const plan::PlanOptions& opt = cli.given;
  Outputs out;
  out.declare(cli.flags, &opt.output);
  if (auto st = out.check(); !st) return fail(st.error());
  auto planned = plan::plan_from_request(request);
  if (!planned) return fail(planned.error(), cli.flags);
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

int run_plan(const PlanCli& cli) {
  auto command = cluster::plan_command_request(cli.given);
  if (!command) return fail(command.error(), cli.flags);
  if (command->rank_plan) return print_rank_plan(cli, *command->rank_plan);
  return print_thread_plan(cli, *command->thread_plan);
}

}  // namespace

void add_plan_command(CLI::App& app, Runner& selected) {
  auto cli = std::make_shared<PlanCli>();
  plan::PlanOptions& o = cli->given;
  FlagTable& flags = cli->flags;
  auto* sub = app.add_subcommand(
      "plan", "Plan thread placement from a workload spec, the topology and measured latencies");
  TM_OPTION(flags, sub, "--spec", o, spec_file, "Workload spec JSON (see docs/plan.md)");
  TM_OPTION(flags, sub, "--pairs", o, pairs,
            "Quick form: N pairs of threads that talk to each other")
      ->check(CLI::Range(1, 1000000));
  TM_OPTION(flags, sub, "--threads", o, threads, "Quick form: N threads placed by --policy")
      ->check(CLI::Range(1, 1000000));
  TM_OPTION(flags, sub, "--policy", o, policy,
            "With --threads: compact, scatter or round-robin (the CPUs `threadmap run "
            "--policy` pins), or spread (hwloc-distrib)")
      ->check(fixed_values(plan::quick_policy_names()));
  TM_OPTION(flags, sub, "--topology", o, topology_file,
            "Plan for another machine: hwloc XML (lstopo --of xml)");
  TM_OPTION(flags, sub, "--latency", o, latency_file,
            "Measured latency matrix (threadmap latency JSON/CSV or nviennot CSV); alone, it "
            "stands for the machine");
  TM_OPTION(flags, sub, "--allowed", o, allowed,
            "CPUs to plan on (overrides the spec's constraints.allowed)");
  TM_OPTION(flags, sub, "--reserved", o, reserved,
            "CPUs to keep free (overrides constraints.reserved)");
  TM_FLAG(flags, sub, "--oversubscribe", o, oversubscribe,
          "Let threads share CPUs when there are too few");
  auto* json =
      TM_FLAG(flags, sub, "--json", o, json, "Print the plan JSON (schema threadmap.plan/1)");
  TM_OPTION(flags, sub, "--export", o, export_format,
            "Print as taskset|numactl|omp|gomp|kmp|likwid|slurm|systemd (with --ranks: "
            "slurm|rankfile|wrapper)")
      ->check(fixed_values(export_names()))
      ->excludes(json);
  TM_OPTION(flags, sub, "--ranks", o, ranks,
            "Split the node's CPUs into N rank shares (NUMA nodes, L3, cores); with "
            "--export slurm|rankfile|wrapper, print them for srun, mpirun or a shell wrapper")
      ->check(CLI::Range(1, 1000000));
  add_gpus_option(sub, flags, o.gpus,
                  "With --ranks: N GPUs per rank (default 1), each rank next to its "
                  "GPUs (the vendor runtime's order), its NIC named (docs/gpu.md)");
  TM_OPTION(flags, sub, "--gpu-visibility", o, gpu_visibility,
            "With --gpus: narrow (default: each rank sees only its GPUs) or all-own-first "
            "(every GPU, the rank's first: CUDA IPC / NCCL P2P; docs/gpu.md)")
      ->check(fixed_values({"narrow", "all-own-first"}));
  TM_OPTION(flags, sub, "--host", o, host,
            "With --ranks --export rankfile: the node's name (default: this host)");
  TM_OPTION(flags, sub, "-o,--output", o, output,
            "Also write the plan JSON to FILE (for threadmap run --plan)");
  TM_OPTION(flags, sub, "--time-limit", o, time_limit_s,
            "Seconds the whole search may take, every solver together (default 1.5)")
      ->check(CLI::Range(0.001, 3600.0));
  TM_OPTION(flags, sub, "--min-steps", o, min_steps,
            "Moves the search tries before --time-limit may stop it (default 300000; 0: "
            "the time limit alone)")
      ->check(whole_number());
  TM_OPTION(flags, sub, "--seed", o, seed, "Local search seed (default 1; same seed, same plan)")
      ->check(whole_number());
  sub->callback([&selected, cli] { selected = [cli] { return run_plan(*cli); }; });
}

}  // namespace threadmap::cli
