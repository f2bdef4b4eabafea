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
#include "src/cli/watch_output.hpp"
#include "src/cluster/rank_command.hpp"
#include "src/os/files.hpp"
#include "src/plan/policy.hpp"
#include "src/render/cache_stats_text.hpp"
#include "src/render/watch_view.hpp"

namespace threadmap::cli {
namespace {

// What each member of the run options is called on the command line (apply::RunOptions).
constexpr FlagOf kRunFlags[] = {
    {"plan_path", "--plan"},
    {"by_name", "--by-name"},
    {"cpus", "--cpus"},
    {"policy", "--policy"},
    {"skip", "--skip"},
    {"libs", "--lib"},
    {"memory", "--mem"},
    {"follow", "--follow"},
    {"interval_ms", "--interval"},
    {"ranks", "--ranks"},
    {"gpus", "--gpus"},
    {"gpu_visibility", "--gpu-visibility"},
    {"topology_file", "--topology"},
    {"local_rank", "--local-rank"},
    {"local_size", "--local-size"},
    {"record_dir", "--record"},
    {"stats", "--stats"},
    {"command", "command"},
};

int run_run(const apply::RunOptions& options) {
  auto command = apply::run_request(options);
  if (!command) return fail(command.error(), kRunFlags);
  apply::RunHooks hooks;
  hooks.note = [](const std::string& line) { os::write_stderr("threadmap: " + line + "\n"); };
  hooks.watch_document = [](const monitor::WatchResult& w) {
    return render::watch_json(w.summary, w.history).dump();
  };
  auto report = cluster::run_rank_command(*command, hooks);
  if (!report) return fail(report.error(), kRunFlags);
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

void add_run_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<apply::RunOptions>();
  apply::RunOptions& r = *opt;
  auto* sub = app.add_subcommand(
      "run", "Run a program with its threads pinned (LD_PRELOAD) and/or the thread cache");
  sub->add_option("--plan", r.plan_path,
                  "Plan JSON (threadmap.plan/1): assignment k pins the k-th created thread; "
                  "\"main\" pins the main thread");
  sub->add_option("--cpus", r.cpus, "CPUs to spread threads over: " + cpu_expression_brief())
      ->check(non_empty_cpus_validator());
  sub->add_option("--policy", r.policy, "With --cpus: compact (default), scatter or round-robin")
      ->check(fixed_values(plan::policy_names()));
  sub->add_flag("--by-name", r.by_name,
                "With --plan: match assignments to thread names (pthread_setname_np)");
  sub->add_option("--skip", r.skip,
                  "Leave threads unpinned: creation index N, name glob, or lib:GLOB "
                  "(start routine's library); repeat for more")
      ->allow_extra_args(false);  // one item per --skip, so CMD is never swallowed
  sub->add_option("--lib", r.libs,
                  "Pin threads whose start routine is in a library: GLOB=CPUS (e.g. libgomp*=1)")
      ->allow_extra_args(false);  // one item per --lib, so CMD is never swallowed
  sub->add_option("--mem", r.memory,
                  "Memory policy of every thread: local, interleave[:NODES], bind:NODES or "
                  "preferred:NODE (OS node numbers, as numactl)")
      ->check(fixed_values(apply::memory_policy_forms()));
  sub->add_flag("--inherit", r.inherit,
                "Programs started by the program that runs the threads keep the pinning rules too "
                "(wrappers such as env, sh -c and scripts pass them on without it)");
  sub->add_flag("--override-affinity", r.override_affinity,
                "Also pin threads the program created with an affinity of their own "
                "(pthread_attr_setaffinity_np); without it their own affinity wins");
  sub->add_flag("--thread-cache", r.thread_cache,
                "Also preload the thread cache (lib/libthreadmap-cache.so)");
  sub->add_flag("--stats", r.stats,
                "With --thread-cache: after the program ends, print the cache's statistics for "
                "every process it started (creates served from the cache, retirements by cause)");
  sub->add_flag("--watch", r.watch, "Watch the program's threads and print a summary at exit");
  sub->add_flag("--follow", r.follow,
                "With --watch: follow the processes it starts too (forked children and what "
                "they exec), each thread labelled with its process");
  sub->add_option("--interval", r.interval_ms, "With --watch: sampling interval in ms")
      ->check(CLI::Range(10, 60000));
  sub->add_option("--ranks", r.ranks,
                  "Under mpirun/srun/mpiexec: take this rank's share of the node (auto reads "
                  "the launcher's environment, or K/N: rank K from 0 of N) and place threads "
                  "inside it; memory is bound to the share's NUMA nodes unless --mem is given")
      ->check(fixed_values({"auto", "K/N"}));
  auto* gpus = sub->add_option("--gpus", r.gpus,
                               "With --ranks: N GPUs per rank (default 1): the rank's GPUs (the "
                               "launcher's CUDA_VISIBLE_DEVICES & co., else the runtime's order), "
                               "CPUs local to them, memory on their node, the nearest NIC named "
                               "(docs/gpu.md)")
                   ->expected(0, 1)
                   ->default_str("1")
                   ->check(CLI::Range(1, 64));
  sub->add_option("--gpu-visibility", r.gpu_visibility,
                  "With --gpus, when threadmap sets the visible-devices variable: narrow (the "
                  "default: only the rank's GPUs) or all-own-first (every GPU, the rank's first: "
                  "for CUDA IPC / NCCL P2P between ranks; docs/gpu.md)")
      ->check(fixed_values({"narrow", "all-own-first"}));
  sub->add_option("--local-rank", r.local_rank,
                  "With --local-size: this rank's number on its node, for launchers threadmap "
                  "does not read (same as --ranks K/N)")
      ->check(CLI::Range(0, 1000000));
  sub->add_option("--local-size", r.local_size, "With --local-rank: ranks on this node")
      ->check(CLI::Range(1, 1000000));
  sub->add_option("--topology", r.topology_file,
                  "With --ranks --gpus: decide from this hwloc XML of this machine (recorded "
                  "with its devices) instead of reading it");
  sub->add_option("--record", r.record_dir,
                  "With --ranks: watch the program and write DIR/<host>.<rank>.json for "
                  "`threadmap job DIR` (DIR must exist)");
  sub->add_flag("--verbose", r.verbose, "Print every pinning decision (TM_VERBOSE=1)");
  sub->add_option("command", r.command, "-- CMD ARGS...")->required();
  sub->callback([&selected, opt, gpus] {
    // --gpus alone means one GPU per rank (CLI11 leaves the value at its default_str).
    if (gpus->count() > 0 && opt->gpus <= 0) opt->gpus = 1;
    selected = [opt] { return run_run(*opt); };
  });
}

}  // namespace threadmap::cli
