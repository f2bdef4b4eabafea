#include "src/cluster/rank_command.hpp"

#include "src/cluster/rank_record.hpp"
#include "src/cluster/rank_run.hpp"
#include "src/os/files.hpp"

namespace threadmap::cluster {
namespace {

apply::RunReport stopped(apply::RunStopKind kind, Error error,
                         apply::RunField field = apply::RunField::none) {
  apply::RunReport report;
  report.stopped = apply::RunStop{kind, field, std::move(error)};
  return report;
}

// The record file of this rank in `dir`, checked before the program starts (an output is
// written whole or not at all, and a typo must not cost a job's run).
Result<std::string> checked_record_path(const std::string& dir, const RankPlacement& rank) {
  if (!os::is_directory(dir))
    return Error::invalid("--record " + dir + ": not an existing directory");
  std::string path = dir + "/" + record_file_name(rank.host, rank.id.local_rank);
  if (auto st = os::check_writable(path); !st) return st.error().with_context("bad --record");
  return path;
}

RankRecord record_of(const RankPlacement& rank, const apply::RunReport& report,
                     const RankRunCommand& command) {
  RankRecord record = make_record(rank, report.exit_status);
  if (report.watched && *report.watched)
    record.watch_json = command.watch_document ? command.watch_document(**report.watched) : "";
  else if (report.watched)
    record.watch_error = report.watched->error().message;
  return record;
}

}  // namespace

apply::RunReport run_rank_command(const RankRunCommand& given) {
  if (given.ranks.empty() && given.record_dir.empty() && given.gpus == 0 && given.local_rank < 0 &&
      given.local_size < 0 && given.topology_file.empty())
    return apply::run_command(given.run);
  RankRunCommand command = given;
  if (auto refused = apply::refuse_unused_options(command.run)) {
    apply::RunReport report;
    report.stopped = std::move(refused);
    return report;
  }
  if (command.local_rank >= 0 || command.local_size >= 0) {
    if (command.local_rank < 0 || command.local_size < 0)
      return stopped(apply::RunStopKind::usage,
                     Error::invalid("--local-rank and --local-size go together"));
    if (!command.ranks.empty() && command.ranks != "auto")
      return stopped(apply::RunStopKind::usage,
                     Error::invalid("--local-rank/--local-size name the rank: no --ranks K/N"));
    command.ranks = std::to_string(command.local_rank) + "/" + std::to_string(command.local_size);
  }
  if (command.ranks.empty())
    return stopped(apply::RunStopKind::usage,
                   Error::invalid(command.gpus > 0 ? "--gpus applies to --ranks only"
                                  : !command.topology_file.empty()
                                      ? "--topology applies to --ranks with --gpus only"
                                      : "--record applies to --ranks only"));
  apply::RunRequest& request = command.run.request;
  bool about_gpus = false;
  auto rank = place_rank(request, RankOptions{command.ranks, command.gpus, command.topology_file},
                         &about_gpus);
  if (!rank) {
    bool usage = rank.error().code == std::errc::invalid_argument;
    return stopped(usage ? apply::RunStopKind::usage : apply::RunStopKind::failure, rank.error(),
                   about_gpus ? apply::RunField::gpus : apply::RunField::ranks);
  }
  // Every pin line of this rank says where it comes from, as --report-bindings does.
  request.line_tag =
      rank->host + "/" +
      std::to_string(rank->id.global_rank >= 0 ? rank->id.global_rank : rank->id.local_rank);
  if (request.verbose && command.run.note) {
    command.run.note(describe_placement(*rank));
    if (rank->gpu)
      for (const std::string& line : rank->gpu->notes) command.run.note(line);
  }
  std::string record_path;
  if (!command.record_dir.empty()) {
    auto path = checked_record_path(command.record_dir, *rank);
    if (!path) return stopped(apply::RunStopKind::failure, path.error());
    record_path = std::move(*path);
  }
  apply::RunReport report =
      apply::run_prepared(apply::prepare_command(command.run, !record_path.empty()));
  if (report.stopped || record_path.empty()) return report;
  std::string text = rank_record_to_json(record_of(*rank, report, command));
  if (auto st = os::write_file(record_path, text); !st) report.output_error = st.error();
  return report;
}

}  // namespace threadmap::cluster
