// The flags of `threadmap run`, declared on a CLI11 subcommand: the one parser of run's command
// line, whose exact inverse is apply::run_arguments (tests/unit/cli: the round trip over every
// flag it declares).
#pragma once

#include "src/apply/run_options.hpp"
#include "src/cli/command.hpp"

namespace threadmap::cli {

/// Declares every flag of `run` on `sub`, each filling its member of `options` and recorded in
/// `flags` (the member -> flag table of the run's errors).
void declare_run_options(CLI::App* sub, apply::RunOptions& options, FlagTable& flags);

}  // namespace threadmap::cli
