// threadmap run [--plan FILE [--by-name] | --cpus EXPR [--policy P]] [--skip N|PATTERN|lib:GLOB]
//               [--lib GLOB=CPUS] [--mem POLICY] [--inherit] [--thread-cache] [--watch]
//               [--ranks auto|K/N] [--verbose] -- CMD ARGS
// Parses; the library validates everything before CMD starts (apply::prepare_run), runs it
// (apply::run_program) and decides the exit status; this file prints.
#include <memory>

#include "src/apply/program_run.hpp"
#include "src/apply/run_request.hpp"
#include "src/cli/command.hpp"
#include "src/cli/outputs.hpp"
#include "src/cli/watch_output.hpp"
#include "src/cluster/rank_run.hpp"
#include "src/os/files.hpp"
#include "src/render/watch_view.hpp"

namespace threadmap::cli {
namespace {

struct RunOptions {
  apply::RunRequest request;
  bool watch = false;
  int interval_ms = 100;
  bool policy_given = false;    // --policy on the command line (it applies to --cpus only)
  bool interval_given = false;  // --interval (it applies to --watch only)
  std::string ranks;            // --ranks auto|K/N: take this rank's share of the node
  std::string record_dir;       // --record DIR: with --ranks, write DIR/<host>.<rank>.json
};

// The flag a request error is about, for the one error line.
std::string flag_of(apply::RunField field) {
  switch (field) {
    case apply::RunField::plan:
      return "--plan";
    case apply::RunField::cpus:
      return "--cpus";
    case apply::RunField::policy:
      return "--policy";
    case apply::RunField::skip:
      return "--skip";
    case apply::RunField::libs:
      return "--lib";
    case apply::RunField::command:
      return "command";
    case apply::RunField::memory:
      return "--mem";
    case apply::RunField::none:
      break;
  }
  return "";
}

int run_run(const RunOptions& given) {
  RunOptions opt = given;
  // Options that would be silently ignored are refused: the user meant something by them.
  if (opt.interval_given && !opt.watch)
    return usage_error(std::string("run: --interval applies to --watch only"));
  std::optional<cluster::RankPlacement> rank;
  if (!opt.ranks.empty()) {
    auto placed = cluster::place_rank(opt.request, opt.ranks);
    if (!placed) {
      Error e = placed.error().with_context("bad --ranks").with_context("run");
      return e.code == std::errc::invalid_argument ? usage_error(e) : fail(e);
    }
    rank = std::move(*placed);
    // Every pin line of this rank says where it comes from, as --report-bindings does.
    opt.request.line_tag =
        rank->host + "/" +
        std::to_string(rank->id.global_rank >= 0 ? rank->id.global_rank : rank->id.local_rank);
    if (opt.request.verbose) os::write_stderr("threadmap: " + describe_placement(*rank) + "\n");
  }
  if (!opt.record_dir.empty() && !rank)
    return usage_error(std::string("run: --record applies to --ranks only"));
  // The record's path is checked before the program starts (whole or absent, like every output).
  std::string record_path;
  Outputs record_out;
  if (rank && !opt.record_dir.empty()) {
    if (!os::is_directory(opt.record_dir))
      return fail(Error::invalid("--record " + opt.record_dir + ": not an existing directory")
                      .with_context("run"));
    record_path = opt.record_dir + "/" + cluster::record_file_name(rank->host, rank->id.local_rank);
    record_out.declare("--record", &record_path);
    if (auto st = record_out.check(); !st) return fail(st.error().with_context("run"));
  }
  if (opt.policy_given && opt.request.cpus.empty())
    return usage_error(std::string("run: --policy applies to --cpus or --ranks only"));
  apply::RunField field = apply::RunField::none;
  std::string memory_note;
  // The plan is read once, by prepare_run: for pinning, and with --watch/--record for checking.
  std::optional<apply::PlanFile> plan;
  auto launch = apply::prepare_run(opt.request, &field, &memory_note, &plan);
  if (!launch) {
    std::string flag = flag_of(field);
    Error e = flag.empty() ? launch.error() : launch.error().with_context("bad " + flag);
    // A value or combination of options that cannot work is a usage error (2); a plan file
    // that cannot be read or used, or a library not found, is a failure (1).
    bool usage = field != apply::RunField::plan && e.code == std::errc::invalid_argument;
    return usage ? usage_error(e.with_context("run")) : fail(e.with_context("run"));
  }
  if (opt.request.verbose && !memory_note.empty())
    os::write_stderr("threadmap: " + memory_note + "\n");
  std::optional<monitor::WatchSettings> watch;
  if (opt.watch || !record_path.empty()) {
    watch = apply::watch_settings(opt.interval_ms, 0, plan ? &*plan : nullptr, opt.request.by_name);
  }
  auto outcome = apply::run_program(*launch, watch);
  if (!outcome) {
    fail(outcome.error());
    return os::start_failure_status(outcome.error());
  }
  bool ours_ok = true;
  if (!record_path.empty()) {
    cluster::RankRecord record = cluster::make_record(*rank, outcome->exit_status);
    if (outcome->watched && *outcome->watched)
      record.watch_json =
          render::watch_json((*outcome->watched)->summary, (*outcome->watched)->history).dump();
    else if (outcome->watched)
      record.watch_error = outcome->watched->error().message;
    record_out.set(&record_path, cluster::rank_record_to_json(record));
    if (auto st = record_out.commit(); !st) ours_ok = fail(st.error().with_context("run")) == 0;
  }
  if (outcome->watched && opt.watch) {
    // The summary goes to stderr: the program's stdout stays clean.
    ours_ok = print_watch_outcome(*outcome->watched, WatchOutputs{}, /*summary_to_stderr=*/true);
  }
  return apply::combined_exit_status(outcome->exit_status, ours_ok);
}

}  // namespace

void add_run_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<RunOptions>();
  apply::RunRequest& r = opt->request;
  auto* sub = app.add_subcommand(
      "run", "Run a program with its threads pinned (LD_PRELOAD) and/or the thread cache");
  sub->add_option("--plan", r.plan_path,
                  "Plan JSON (threadmap.plan/1): assignment k pins the k-th created thread; "
                  "\"main\" pins the main thread");
  sub->add_option("--cpus", r.cpus,
                  "CPUs to spread threads over: list (0-3), mask, all, or locations (core:0-3)")
      ->check(non_empty_cpus_validator());
  auto* policy = sub->add_option("--policy", r.policy,
                                 "With --cpus: compact (default), scatter or round-robin");
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
                  "preferred:NODE (OS node numbers, as numactl)");
  sub->add_flag("--inherit", r.inherit, "Programs CMD execs keep the pinning rules");
  sub->add_flag("--override-affinity", r.override_affinity,
                "Also pin threads the program created with an affinity of their own "
                "(pthread_attr_setaffinity_np); without it their own affinity wins");
  sub->add_flag("--thread-cache", r.thread_cache,
                "Also preload the thread cache (lib/libthreadmap-cache.so)");
  sub->add_flag("--watch", opt->watch, "Watch the program's threads and print a summary at exit");
  auto* interval =
      sub->add_option("--interval", opt->interval_ms, "With --watch: sampling interval in ms")
          ->check(CLI::Range(10, 60000));
  sub->add_option("--ranks", opt->ranks,
                  "Under mpirun/srun/mpiexec: take this rank's share of the node (auto reads "
                  "the launcher's environment, or K/N: rank K from 0 of N) and place threads "
                  "inside it; memory is bound to the share's NUMA nodes unless --mem is given");
  sub->add_option("--record", opt->record_dir,
                  "With --ranks: watch the program and write DIR/<host>.<rank>.json for "
                  "`threadmap job DIR` (DIR must exist)");
  sub->add_flag("--verbose", r.verbose, "Print every pinning decision (TM_VERBOSE=1)");
  sub->add_option("command", r.command, "-- CMD ARGS...")->required();
  sub->callback([&selected, opt, policy, interval] {
    opt->policy_given = policy->count() > 0;
    opt->interval_given = interval->count() > 0;
    selected = [opt] { return run_run(*opt); };
  });
}

}  // namespace threadmap::cli
