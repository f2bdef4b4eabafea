// threadmap run [--plan FILE [--by-name] | --cpus EXPR [--policy P]] [--skip N|PATTERN|lib:GLOB]
//               [--lib GLOB=CPUS] [--mem POLICY] [--inherit] [--thread-cache [--stats]]
//               [--watch [--follow]]
//               [--ranks auto|K/N [--gpus [N]] [--topology FILE] [--record DIR]]
//               [--local-rank K --local-size N] [--verbose] -- CMD ARGS
// Parses into apply::RunOptions, has the library check them (apply::run_request) and run the
// command in one call (cluster::run_rank_command: everything is checked before CMD starts),
// and prints what it returns: the one error line, the watch summary, the thread cache's
// statistics, the exit status.
#include <memory>

#include "src/apply/memory_policy.hpp"
#include "src/apply/program_run.hpp"
#include "src/apply/run_options.hpp"
#include "src/cli/command.hpp"
#include "src/cli/manual_sections.hpp"
#include "src/cli/run_flags.hpp"
#include "src/cli/watch_output.hpp"
#include "src/cluster/rank_command.hpp"
#include "src/os/files.hpp"
#include "src/plan/policy.hpp"
#include "src/render/cache_stats_text.hpp"
#include "src/render/watch_view.hpp"

namespace threadmap::cli {
namespace {

// `run` as given, and its table from member to flag (filled as the flags are declared).
struct RunCli {
  apply::RunOptions given;
  FlagTable flags;
};

int run_run(const RunCli& cli) {
  auto command = apply::run_request(cli.given);
  if (!command) return fail(command.error(), cli.flags);
  apply::RunHooks hooks;
  hooks.note = [](const std::string& line) { os::write_stderr("threadmap: " + line + "\n"); };
  hooks.watch_document = [](const monitor::WatchResult& w) {
    return render::watch_json(w.summary, w.history).dump();
  };
  auto report = cluster::run_rank_command(*command, hooks);
  if (!report) return fail(report.error(), cli.flags);
  bool ours_ok = true;
  if (report->output_error) ours_ok = fail(*report->output_error) == 0;
  if (report->watched && command->watch) {
    // The summary goes to stderr: the program's stdout stays clean.
    ours_ok = print_watch_outcome(*report->watched, WatchOutputs{}, /*summary_to_stderr=*/true);
  }
  if (report->cache_stats) {
    // On stderr, after the program: its stdout stays clean. A file that cannot be read is the
    // work's failure; its message names the file.
    if (*report->cache_stats)
      os::write_stderr(render::cache_stats_text(**report->cache_stats));
    else
      ours_ok = fail(report->cache_stats->error()) == 0 && ours_ok;
  }
  return apply::combined_exit_status(report->exit_status, ours_ok);
}

}  // namespace

void declare_run_options(CLI::App* sub, apply::RunOptions& r, FlagTable& flags) {
  TM_OPTION(flags, sub, "--plan", r, plan_path,
            "Plan JSON (threadmap.plan/1): assignment k pins the k-th created thread; "
            "\"main\" pins the main thread");
  TM_OPTION(flags, sub, "--cpus", r, cpus, "CPUs to spread threads over: " + cpu_expression_brief())
      ->check(non_empty_cpus_validator());
  TM_OPTION(flags, sub, "--policy", r, policy,
            "With --cpus: compact (default), scatter or round-robin")
      ->check(fixed_values(plan::policy_names()));
  TM_FLAG(flags, sub, "--by-name", r, by_name,
          "With --plan: match assignments to thread names (pthread_setname_np)");
  TM_OPTION(flags, sub, "--skip", r, skip,
            "Leave threads unpinned: creation index N, name glob, or lib:GLOB "
            "(start routine's library); repeat for more")
      ->allow_extra_args(false);  // one item per --skip, so CMD is never swallowed
  TM_OPTION(flags, sub, "--lib", r, libs,
            "Pin threads whose start routine is in a library: GLOB=CPUS (e.g. libgomp*=1)")
      ->allow_extra_args(false);  // one item per --lib, so CMD is never swallowed
  TM_OPTION(flags, sub, "--mem", r, memory,
            "Memory policy of every thread: local, interleave[:NODES], bind:NODES or "
            "preferred:NODE (OS node numbers, as numactl)")
      ->check(fixed_values(apply::memory_policy_forms()));
  TM_FLAG(flags, sub, "--inherit", r, inherit,
          "Programs started by the program that runs the threads keep the pinning rules too "
          "(wrappers such as env, sh -c and scripts pass them on without it)");
  TM_FLAG(flags, sub, "--override-affinity", r, override_affinity,
          "Also pin threads the program created with an affinity of their own "
          "(pthread_attr_setaffinity_np); without it their own affinity wins");
  TM_FLAG(flags, sub, "--thread-cache", r, thread_cache,
          "Also preload the thread cache (lib/libthreadmap-cache.so)");
  TM_FLAG(flags, sub, "--stats", r, stats,
          "With --thread-cache: after the program ends, print the cache's statistics for "
          "every process it started (creates served from the cache, retirements by cause)");
  TM_FLAG(flags, sub, "--watch", r, watch,
          "Watch the program's threads and print a summary at exit");
  TM_FLAG(flags, sub, "--follow", r, follow,
          "With --watch: follow the processes it starts too (forked children and what "
          "they exec), each thread labelled with its process");
  TM_OPTION(flags, sub, "--interval", r, interval_ms, "With --watch: sampling interval in ms")
      ->check(CLI::Range(10, 60000));
  TM_OPTION(flags, sub, "--ranks", r, ranks,
            "Under mpirun/srun/mpiexec: take this rank's share of the node (auto reads "
            "the launcher's environment, or K/N: rank K from 0 of N) and place threads "
            "inside it; memory is bound to the share's NUMA nodes unless --mem is given")
      ->check(fixed_values({"auto", "K/N"}));
  add_gpus_option(sub, flags, r.gpus,
                  "With --ranks: N GPUs per rank (default 1): the rank's GPUs (the "
                  "launcher's CUDA_VISIBLE_DEVICES & co., else the runtime's order), "
                  "CPUs local to them, memory on their node, the nearest NIC named "
                  "(docs/gpu.md)");
  TM_OPTION(flags, sub, "--gpu-visibility", r, gpu_visibility,
            "With --gpus, when threadmap sets the visible-devices variable: narrow (the "
            "default: only the rank's GPUs) or all-own-first (every GPU, the rank's first: "
            "for CUDA IPC / NCCL P2P between ranks; docs/gpu.md)")
      ->check(fixed_values({"narrow", "all-own-first"}));
  TM_OPTION(flags, sub, "--local-rank", r, local_rank,
            "With --local-size: this rank's number on its node, for launchers threadmap "
            "does not read (same as --ranks K/N)")
      ->check(CLI::Range(0, 1000000));
  TM_OPTION(flags, sub, "--local-size", r, local_size, "With --local-rank: ranks on this node")
      ->check(CLI::Range(1, 1000000));
  TM_OPTION(flags, sub, "--topology", r, topology_file,
            "With --ranks --gpus: decide from this hwloc XML of this machine (recorded "
            "with its devices) instead of reading it");
  TM_OPTION(flags, sub, "--record", r, record_dir,
            "With --ranks: watch the program and write DIR/<host>.<rank>.json for "
            "`threadmap job DIR` (DIR must exist)");
  TM_FLAG(flags, sub, "--verbose", r, verbose, "Print every pinning decision (TM_VERBOSE=1)");
  TM_OPTION(flags, sub, "command", r, command, "-- CMD ARGS...")->required();
}

void add_run_command(CLI::App& app, Runner& selected) {
  auto cli = std::make_shared<RunCli>();
  auto* sub = app.add_subcommand(
      "run", "Run a program with its threads pinned (LD_PRELOAD) and/or the thread cache");
  declare_run_options(sub, cli->given, cli->flags);
  sub->callback([&selected, cli] { selected = [cli] { return run_run(*cli); }; });
}

}  // namespace threadmap::cli
