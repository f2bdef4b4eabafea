// threadmap ps PID [--json] [--sample SECONDS]
#include <memory>

#include "src/cli/command.hpp"
#include "src/render/threads_view.hpp"
#include "threadmap/process.hpp"

namespace threadmap::cli {
namespace {

struct PsOptions {
  pid_t pid = 0;
  bool json = false;
  double sample_s = 0.5;
  FlagTable flags;  ///< member -> flag, filled as the flags are declared
};

int run_ps(const PsOptions& opt) {
  auto threads = opt.sample_s > 0 ? sample_threads(opt.pid, opt.sample_s) : list_threads(opt.pid);
  if (!threads) return fail(threads.error());
  if (opt.json) {
    auto name = process_name(opt.pid);
    print(render::threads_json(opt.pid, name.value_or(""), *threads, opt.sample_s).dump(2) + "\n");
  } else {
    print(render::threads_table(*threads, opt.sample_s));
  }
  return 0;
}

}  // namespace

void add_ps_command(CLI::App& app, Runner& selected) {
  auto opt = std::make_shared<PsOptions>();
  auto* sub = app.add_subcommand("ps", "Show the threads of a running process and where they run");
  TM_OPTION(opt->flags, sub, "pid", *opt, pid, "Process id")
      ->required()
      ->check(process_id_validator());
  TM_FLAG(opt->flags, sub, "--json", *opt, json, "Print JSON (schema threadmap.threads/1)");
  TM_OPTION(opt->flags, sub, "--sample", *opt, sample_s,
            "Seconds over which CPU% is measured, as top -H shows it (default 0.5; 0 = "
            "no CPU%, only the CPU time since each thread started)")
      ->check(CLI::Range(0.0, 60.0));
  sub->callback([&selected, opt] { selected = [opt] { return run_ps(*opt); }; });
}

}  // namespace threadmap::cli
