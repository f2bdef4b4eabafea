// The one table of subcommands: main() declares each from here, and tests/unit/cli checks that
// every subcommand the parser knows is here, with the library function that checks its options
// into a command that only that function can make (docs/DEVELOPING.md, "Adding a command or a
// flag").
#include <type_traits>

#include "src/apply/pin_command.hpp"
#include "src/apply/run_options.hpp"
#include "src/apply/watch_command.hpp"
#include "src/cli/command.hpp"
#include "src/cluster/rank_plan.hpp"
#include "src/experiments/bench_command.hpp"
#include "src/latency/latency_run.hpp"
#include "src/tune/tune_command.hpp"

namespace threadmap::cli {
namespace {

// Whether the checked type the check returns has no public constructor: then the check is its
// only source (copies aside).
template <class Options, class Checked>
constexpr bool only_from(Result<Checked> (*)(const Options&)) {
  return !std::is_default_constructible_v<Checked>;
}

#define TM_CHECKED_BY(fn) #fn, only_from(&fn)

constexpr Subcommand kSubcommands[] = {
    {"topo", add_topo_command, "", false},
    {"latency", add_latency_command, TM_CHECKED_BY(latency::latency_request)},
    {"plan", add_plan_command, TM_CHECKED_BY(cluster::plan_command_request)},
    {"run", add_run_command, TM_CHECKED_BY(apply::run_request)},
    {"ps", add_ps_command, "", false},
    {"pin", add_pin_command, TM_CHECKED_BY(apply::pin_request)},
    {"watch", add_watch_command, TM_CHECKED_BY(apply::watch_request)},
    {"bench", add_bench_command, TM_CHECKED_BY(experiments::bench_request)},
    {"report", add_report_command, "", false},
    {"job", add_job_command, "", false},
    {"fleet", add_fleet_command, "", false},
    {"tune", add_tune_command, TM_CHECKED_BY(tune::tune_request)},
};

}  // namespace

std::span<const Subcommand> subcommands() { return kSubcommands; }

}  // namespace threadmap::cli
