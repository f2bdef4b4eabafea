// `threadmap run --ranks ... [--record DIR]` as one call: this rank's share taken (rank_run),
// the record's path checked before the program starts, the run of apply/run_command inside the
// share, and the record written whole or not at all after the program ended.
#pragma once

#include <functional>
#include <string>

#include "src/apply/run_command.hpp"
#include "src/monitor/watch_session.hpp"

namespace threadmap::cluster {

/// `run` with the rank options.
struct RankRunCommand {
  apply::RunCommand run;
  std::string ranks;          ///< "auto" or "K/N"; empty: a plain run (a record is refused)
  std::string record_dir;     ///< write DIR/<host>.<rank>.json (DIR must exist); empty: no record
  int gpus = 0;               ///< --gpus [N]: N GPUs per rank, placed next to them; 0: none
  std::string topology_file;  ///< --topology: a recording of this machine with its devices
  /// --local-rank K --local-size N, for launchers threadmap does not read (= --ranks K/N); -1:
  /// not given.
  int local_rank = -1;
  int local_size = -1;
  /// The watch as the threadmap.watch/1 text the record carries. Passed in because the writer
  /// of that document belongs to render, which sits above cluster.
  std::function<std::string(const monitor::WatchResult&)> watch_document;
};

/// Runs the command, in this order of checks: an interval without a watch (usage); the rank
/// placed (place_rank: a value that cannot work is usage, a machine that cannot be read a
/// failure; with request.verbose, the placement is noted); a record without ranks (usage); the
/// record directory missing or the record file not writable (failure, before anything starts);
/// then apply::prepare_command and apply::run_prepared, watching for the record. Every pin line
/// of the rank is tagged host/rank. A record that cannot be written after the run is
/// `output_error`. Without ranks and record, this is apply::run_command.
apply::RunReport run_rank_command(const RankRunCommand& command);

}  // namespace threadmap::cluster
