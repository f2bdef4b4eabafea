// threadmap run [--plan FILE [--by-name] | --cpus EXPR [--policy P]] [--skip N|PATTERN|lib:GLOB]
//               [--lib GLOB=CPUS] [--inherit] [--thread-cache] [--watch] [--verbose] -- CMD ARGS
// Parses, validates everything before starting CMD, launches it under the preload libraries and
// passes its exit status through.
#include <memory>

#include "src/apply/launcher.hpp"
#include "src/apply/placement.hpp"
#include "src/apply/plan_file.hpp"
#include "src/cli/command.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::cli {

// Defined in watch.cpp: watches a child this process started until it exits, prints the
// summary, and returns the child's exit status (or 1 when watching failed).
int watch_child_process(pid_t child, int interval_ms, const std::string& plan_path, bool by_name);

namespace {

struct RunOptions {
  std::string plan;
  std::string cpus;
  std::string policy = "compact";
  bool by_name = false;
  std::vector<std::string> skip;
  std::vector<std::string> libs;
  bool inherit = false;
  bool thread_cache = false;
  bool watch = false;
  int interval_ms = 100;
  bool verbose = false;
  std::vector<std::string> command;
};

Result<apply::PinRules> build_rules(const RunOptions& opt, const Topology& topo) {
  apply::PinRules rules;
  if (!opt.plan.empty()) {
    auto plan = apply::read_plan_file(opt.plan);
    if (!plan) return plan.error();
    rules = apply::rules_from_plan(*plan, opt.by_name);
  } else if (!opt.cpus.empty()) {
    auto policy = apply::parse_policy(opt.policy);
    if (!policy) return policy.error().with_context("bad --policy");
    auto cpus = topo.resolve(opt.cpus);
    if (!cpus) return cpus.error().with_context("bad --cpus");
    rules = apply::rules_from_order(apply::order_cpus(topo, *cpus, *policy));
  }
  if (auto st = apply::add_skips(rules, opt.skip); !st) return st.error();
  for (const std::string& item : opt.libs)
    if (auto st = apply::add_library_rule(rules, topo, item); !st) return st.error();
  rules.inherit = opt.inherit;
  return rules;
}

int run_run(const RunOptions& opt) {
  if (opt.command.empty()) return fail(std::string("run: no command given (use -- CMD ARGS...)"));
  bool pinning = !opt.plan.empty() || !opt.cpus.empty() || !opt.libs.empty();
  if (!opt.plan.empty() && !opt.cpus.empty())
    return fail(std::string("run: --plan and --cpus cannot be combined"));
  if (opt.by_name && opt.plan.empty()) return fail(std::string("run: --by-name needs --plan"));
  if (!pinning && !opt.thread_cache)
    return fail(std::string("run: nothing to apply (give --plan, --cpus, --lib or --thread-cache)"));

  apply::LaunchSpec spec;
  spec.argv = opt.command;
  if (pinning) {
    auto topo = Topology::load_this_machine();
    if (!topo) return fail(topo.error());
    auto rules = build_rules(opt, *topo);
    if (!rules) return fail(rules.error());
    auto config = apply::encode_pin_config(*rules, topo->allowed_cpus());
    if (!config) return fail(config.error());
    auto lib = apply::find_preload_library("pin");
    if (!lib) return fail(lib.error());
    spec.preload.push_back(*lib);
    spec.set_env.emplace_back(apply::kPinConfigVar, *config);
  }
  if (opt.thread_cache) {
    auto lib = apply::find_preload_library("cache");
    if (!lib) return fail(lib.error());
    spec.preload.push_back(*lib);  // after the pin library: its wrapper runs on top
  }
  if (opt.verbose) spec.set_env.emplace_back("TM_VERBOSE", "1");

  auto child = apply::spawn(spec);
  if (!child) {
    fail(child.error());
    return child.error().code.value() == ENOENT ? 127 : 126;  // the shell's conventions
  }
  apply::forward_signals_to(*child);
  int status = 0;
  if (opt.watch) {
    status = watch_child_process(*child, opt.interval_ms, opt.plan, opt.by_name);
  } else {
    auto exit_status = apply::wait_for_exit(*child);
    status = exit_status ? *exit_status : fail(exit_status.error());
  }
  apply::stop_forwarding();
  return status;
}

}  // namespace

void add_run_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<RunOptions>();
  auto* sub = app.add_subcommand(
      "run", "Run a program with its threads pinned (LD_PRELOAD) and/or the thread cache");
  sub->add_option("--plan", opt->plan,
                  "Plan JSON (threadmap.plan/1): assignment k pins the k-th created thread; "
                  "\"main\" pins the main thread");
  sub->add_option("--cpus", opt->cpus,
                  "CPUs to spread threads over: list (0-3), mask, all, or locations (core:0-3)");
  sub->add_option("--policy", opt->policy,
                  "With --cpus: compact (default), scatter or round-robin");
  sub->add_flag("--by-name", opt->by_name,
                "With --plan: match assignments to thread names (pthread_setname_np)");
  sub->add_option("--skip", opt->skip,
                  "Leave threads unpinned: creation index N, name glob, or lib:GLOB "
                  "(start routine's library); repeat for more")
      ->allow_extra_args(false);  // one item per --skip, so CMD is never swallowed
  sub->add_option("--lib", opt->libs,
                  "Pin threads whose start routine is in a library: GLOB=CPUS (e.g. libgomp*=1)")
      ->allow_extra_args(false);  // one item per --skip, so CMD is never swallowed
  sub->add_flag("--inherit", opt->inherit, "Programs CMD execs keep the pinning rules");
  sub->add_flag("--thread-cache", opt->thread_cache,
                "Also preload the thread cache (lib/libthreadmap-cache.so)");
  sub->add_flag("--watch", opt->watch, "Watch the program's threads and print a summary at exit");
  sub->add_option("--interval", opt->interval_ms, "With --watch: sampling interval in ms")
      ->check(CLI::Range(10, 60000));
  sub->add_flag("--verbose", opt->verbose, "Print every pinning decision (TM_VERBOSE=1)");
  sub->add_option("command", opt->command, "-- CMD ARGS...")->required();
  sub->callback([&selected, opt] { selected = [opt] { return run_run(*opt); }; });
}

}  // namespace threadmap::cli
