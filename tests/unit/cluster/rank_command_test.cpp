// `run --ranks --record` as one library call, without a launcher (--ranks K/N): the record's
// path is refused before the program starts, a record without ranks is the command line's
// fault, and a run leaves the whole record with the program's status and the watch document it
// was given.
#include "src/cluster/rank_command.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "src/cluster/rank_record.hpp"
#include "src/os/host.hpp"

namespace threadmap::cluster {
namespace {

std::string temp_path(const std::string& name) {
  return testing::TempDir() + "/tm_rank_command_" + std::to_string(getpid()) + "_" + name;
}

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// Options that leave `marker` when their program runs: its absence proves it never started.
apply::RunOptions touching(const std::string& marker) {
  apply::RunOptions options;
  options.command = {"/bin/sh", "-c", "touch '" + marker + "'"};
  return options;
}

// The options checked (they must pass) and run as `threadmap run` runs them.
Result<apply::RunReport> run(const apply::RunOptions& options, const apply::RunHooks& hooks = {}) {
  auto command = apply::run_request(options);
  if (!command) return command.error();
  return run_rank_command(*command, hooks);
}

TEST(RankCommand, ARecordWithoutRanksIsTheCommandLinesFaultAndNothingStarts) {
  std::string marker = temp_path("no_ranks");
  apply::RunOptions options = touching(marker);
  options.cpus = "0";
  options.record_dir = testing::TempDir();
  auto report = run(options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().fault, Fault::input);
  EXPECT_EQ(report.error().input, "record_dir");
  EXPECT_EQ(report.error().message.find("--"), std::string::npos) << report.error().message;
  EXPECT_FALSE(exists(marker));
}

TEST(RankCommand, AMissingRecordDirectoryIsRefusedBeforeTheStart) {
  std::string marker = temp_path("missing_dir");
  apply::RunOptions options = touching(marker);
  options.ranks = "0/1";
  options.record_dir = temp_path("no_such_dir");
  auto report = run(options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().fault, Fault::work);
  EXPECT_EQ(report.error().input, "record_dir");
  EXPECT_NE(report.error().message.find("not an existing directory"), std::string::npos)
      << report.error().message;
  EXPECT_FALSE(exists(marker));
}

TEST(RankCommand, ARecordPathThatCannotBeWrittenIsRefusedBeforeTheStart) {
  std::string marker = temp_path("blocked");
  std::string dir = temp_path("blocked_dir");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  // The record's own name taken by a directory: the file can never be written there.
  std::string record = dir + "/" + record_file_name(os::host_name(), 0);
  ASSERT_EQ(mkdir(record.c_str(), 0755), 0);
  apply::RunOptions options = touching(marker);
  options.ranks = "0/1";
  options.record_dir = dir;
  auto report = run(options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().fault, Fault::work);
  EXPECT_EQ(report.error().input, "record_dir");
  EXPECT_FALSE(exists(marker));
  rmdir(record.c_str());
  rmdir(dir.c_str());
}

TEST(RankCommand, ABadRankSpecIsTheCommandLinesFaultAboutTheRanks) {
  std::string marker = temp_path("bad_spec");
  apply::RunOptions options = touching(marker);
  options.ranks = "3/2";
  auto report = run(options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().fault, Fault::input);
  EXPECT_EQ(report.error().input, "ranks");
  EXPECT_FALSE(exists(marker));
}

TEST(RankCommand, ARunLeavesTheWholeRecordWithTheStatusAndTheWatch) {
#ifdef THREADMAP_SANITIZED
  // The pin library this program runs under is built with the sanitizer too, whose runtime must
  // come first in LD_PRELOAD: the sanitizer aborts the program instead. The integration tests run
  // this path in the plain build (DEVELOPING.md, "Tests").
  GTEST_SKIP() << "sanitizer build: the preloaded pin library needs the sanitizer runtime first";
#endif

  std::string dir = temp_path("record_dir");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  apply::RunOptions options;
  options.command = {"/bin/sh", "-c", "exit 3"};
  options.ranks = "0/1";
  options.record_dir = dir;
  auto command = apply::run_request(options);
  ASSERT_TRUE(command.ok()) << command.error().message;
  command->interval_ms = 10;
  int documents = 0;
  apply::RunHooks hooks;
  hooks.watch_document = [&](const monitor::WatchResult&) {
    ++documents;
    return std::string(R"({"schema":"threadmap.watch/1","pid":4242,"threads":[]})");
  };
  auto ran = run_rank_command(*command, hooks);
  ASSERT_TRUE(ran.ok()) << ran.error().message;
  const apply::RunReport& report = *ran;
  EXPECT_EQ(report.exit_status, 3);
  EXPECT_FALSE(report.output_error.has_value());
  std::string path = dir + "/" + record_file_name(os::host_name(), 0);
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  auto loaded = parse_rank_record(text.str(), path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->record.exit_status, 3);
  EXPECT_EQ(loaded->record.rank, 0);
  EXPECT_EQ(loaded->record.ranks, 1);
  if (report.watched && report.watched->ok()) {
    EXPECT_EQ(documents, 1);
    EXPECT_EQ(loaded->pid, 4242);  // the document the caller's writer made, verbatim
  } else {
    EXPECT_FALSE(loaded->record.watch_error.empty());
  }
  unlink(path.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace threadmap::cluster
