#include "src/cluster/rank_command.hpp"

#include "src/cluster/rank_record.hpp"
#include "src/cluster/rank_run.hpp"
#include "src/os/files.hpp"

namespace threadmap::cluster {
namespace {

// The record file of this rank in `dir`, checked before the program starts (an output is
// written whole or not at all, and a typo must not cost a job's run).
Result<std::string> checked_record_path(const std::string& dir, const RankPlacement& rank) {
  if (!os::is_directory(dir))
    return Error::invalid("'" + dir + "' is not an existing directory").about("record_dir");
  std::string path = dir + "/" + record_file_name(rank.host, rank.id.local_rank);
  if (auto st = os::check_writable(path); !st) return st.error().about("record_dir");
  return path;
}

RankRecord record_of(const RankPlacement& rank, const apply::RunReport& report,
                     const apply::RunHooks& hooks) {
  RankRecord record = make_record(rank, report.exit_status);
  if (report.watched && *report.watched)
    record.watch_json = hooks.watch_document ? hooks.watch_document(**report.watched) : "";
  else if (report.watched)
    record.watch_error = report.watched->error().message;
  return record;
}

}  // namespace

Result<apply::RunReport> run_rank_command(const apply::RunCommand& given,
                                          const apply::RunHooks& hooks) {
  if (given.ranks.empty()) return apply::run_command(given, hooks);
  apply::RunCommand command = given;
  apply::RunRequest& request = command.request;
  auto rank = place_rank(request, RankOptions{command.ranks, command.gpus, command.topology_file,
                                              command.gpu_visibility});
  if (!rank) return rank.error();
  // Every pin line of this rank says where it comes from, as --report-bindings does.
  request.line_tag =
      rank->host + "/" +
      std::to_string(rank->id.global_rank >= 0 ? rank->id.global_rank : rank->id.local_rank);
  if (request.verbose && hooks.note) {
    hooks.note(describe_placement(*rank));
    if (rank->gpu)
      for (const std::string& line : rank->gpu->notes) hooks.note(line);
  }
  std::string record_path;
  if (!command.record_dir.empty()) {
    auto path = checked_record_path(command.record_dir, *rank);
    if (!path) return path.error();
    record_path = std::move(*path);
  }
  auto prepared = apply::prepare_command(command, hooks, !record_path.empty());
  if (!prepared) return prepared.error();
  auto report = apply::run_prepared(*prepared);
  if (!report || record_path.empty()) return report;
  std::string text = rank_record_to_json(record_of(*rank, *report, hooks));
  if (auto st = os::write_file(record_path, text); !st) report->output_error = st.error();
  return report;
}

}  // namespace threadmap::cluster
