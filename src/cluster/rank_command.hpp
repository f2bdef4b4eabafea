// `threadmap run --ranks ... [--record DIR]` as one call: this rank's share taken (rank_run),
// the record's path checked before the program starts, the run of apply/run_command inside the
// share, and the record written whole or not at all after the program ended.
#pragma once

#include "src/apply/run_command.hpp"

namespace threadmap::cluster {

/// Runs the checked `run` command (apply::run_request), in this order: without ranks, exactly
/// apply::run_command. With ranks: the rank placed (place_rank: a rank that cannot be known or
/// placed is Fault::input about `ranks`, GPUs that cannot be placed about `gpus`, a recorded
/// topology about `topology_file`, a machine that cannot be read the work's; with --verbose the
/// placement and the GPUs' notes are noted); the record directory missing or the record file not
/// writable (Fault::work about `record_dir`, before anything starts); then
/// apply::prepare_command and apply::run_prepared, watching for the record. Every pin line of
/// the rank is tagged host/rank. A record that cannot be written after the run is
/// `output_error`.
Result<apply::RunReport> run_rank_command(const apply::RunCommand& command,
                                          const apply::RunHooks& hooks);

}  // namespace threadmap::cluster
