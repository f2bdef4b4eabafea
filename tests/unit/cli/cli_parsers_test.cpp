// The one way a command and a flag are added (docs/DEVELOPING.md, "Adding a command or a
// flag"): each subcommand is in the one table with the library check that alone makes its
// checked command; each option is declared through its command's member -> flag table; run's
// parser and apply::run_arguments are exact inverses over every flag the parser declares.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "src/apply/run_options.hpp"
#include "src/cli/command.hpp"
#include "src/cli/run_flags.hpp"
#include "src/tune/tune_command.hpp"

namespace threadmap::cli {
namespace {

// Every member of RunOptions set to a value that is not its default: a flag the round trip
// does not write, or writes wrong, changes one of them.
apply::RunOptions every_run_flag() {
  apply::RunOptions o;
  o.plan_path = "plan.json";
  o.by_name = true;
  o.cpus = "0-3";
  o.policy = "scatter";
  o.skip = {"0", "lib:libgomp*"};
  o.libs = {"libgomp*=1", "libfoo*=2"};
  o.memory = "interleave:0,1";
  o.inherit = true;
  o.override_affinity = true;
  o.thread_cache = true;
  o.stats = true;
  o.watch = true;
  o.follow = true;
  o.interval_ms = 250;
  o.ranks = "1/4";
  o.gpus = 2;
  o.gpu_visibility = "all-own-first";
  o.topology_file = "node.xml";
  o.local_rank = 1;
  o.local_size = 4;
  o.record_dir = "records";
  o.verbose = true;
  o.command = {"./app", "--its-own", "a b", "--"};
  return o;
}

// `threadmap ARGS` parsed by run's own parser.
apply::RunOptions parse_run(const std::vector<std::string>& args) {
  CLI::App app;
  CLI::App* sub = app.add_subcommand("run");
  apply::RunOptions into;
  FlagTable flags;
  declare_run_options(sub, into, flags);
  std::vector<std::string> argv = {"threadmap"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> pointers;
  for (std::string& a : argv) pointers.push_back(a.data());
  app.parse(static_cast<int>(pointers.size()), pointers.data());
  return into;
}

TEST(RunFlags, TheParserGivesBackWhatRunArgumentsWrote) {
  const apply::RunOptions given = every_run_flag();
  EXPECT_EQ(parse_run(apply::run_arguments(given)), given);
  EXPECT_EQ(apply::run_arguments(parse_run(apply::run_arguments(given))),
            apply::run_arguments(given));
  // --gpus alone is one GPU per rank, which run_arguments writes as --gpus 1.
  const apply::RunOptions alone = parse_run({"run", "--ranks", "auto", "--gpus", "--", "x"});
  EXPECT_EQ(alone.gpus, 1);
  EXPECT_EQ(parse_run(apply::run_arguments(alone)), alone);
}

TEST(RunFlags, EveryFlagTheParserDeclaresIsWrittenByTheRoundTrip) {
  CLI::App app;
  CLI::App* sub = app.add_subcommand("run");
  apply::RunOptions into;
  FlagTable flags;
  declare_run_options(sub, into, flags);
  const std::vector<std::string> written = apply::run_arguments(every_run_flag());
  int checked = 0;
  for (const CLI::Option* option : sub->get_options()) {
    if (option == sub->get_help_ptr()) continue;
    const std::string name = option->get_name();
    if (option->get_positional()) {
      EXPECT_NE(std::find(written.begin(), written.end(), "--"), written.end()) << name;
    } else {
      EXPECT_NE(std::find(written.begin(), written.end(), name), written.end())
          << name << " is declared by the run parser but neither set by every_run_flag() nor "
          << "written by apply::run_arguments: add it to both";
    }
    ++checked;
  }
  EXPECT_GE(checked, 23);
}

TEST(Subcommands, EachOptionIsDeclaredThroughItsMemberToFlagTable) {
  CLI::App app;
  Runner selected;
  std::set<std::string> names;
  for (const Subcommand& entry : subcommands()) {
    EXPECT_TRUE(names.insert(std::string(entry.name)).second) << entry.name << " twice";
    entry.add(app, selected);
  }
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    EXPECT_TRUE(names.count(sub->get_name())) << sub->get_name() << " is not in the table";
    for (const CLI::Option* option : sub->get_options()) {
      if (option == sub->get_help_ptr()) continue;
      // The one exception: watch's --no-live sets no options member (a display choice).
      if (sub->get_name() == "watch" && option->get_name() == "--no-live") continue;
      EXPECT_TRUE(FlagTable::declared(option))
          << sub->get_name() << " " << option->get_name()
          << " is declared without TM_OPTION/TM_FLAG: its errors could not name it";
    }
  }
}

// Commands whose options are still checked in the CLI or in the command's one call, without a
// checked type of their own; the list may only shrink (a command that gains its check must
// leave it, and a new command cannot join it).
const std::set<std::string> kNotYetChecked = {"topo", "ps", "report", "job", "fleet"};

TEST(Subcommands, EachCheckedCommandIsMadeOnlyByItsCheck) {
  for (const Subcommand& entry : subcommands()) {
    const bool debt = kNotYetChecked.count(std::string(entry.name)) > 0;
    EXPECT_EQ(entry.only_from_check, !debt)
        << entry.name
        << (debt ? ": its checked command is made only by its check now: take it "
                   "off kNotYetChecked"
                 : ": a command needs an options struct and a check function that "
                   "alone makes its checked command (no public constructor)");
    if (!debt) {
      EXPECT_FALSE(entry.check.empty()) << entry.name;
    }
  }
}

// Every member a check names in its refusals is one its command's table maps to a flag: a
// misspelled member would drop the flag from the error line.
TEST(RunFlags, EveryRefusalOfTheCheckNamesADeclaredFlag) {
  CLI::App app;
  CLI::App* sub = app.add_subcommand("run");
  apply::RunOptions into;
  FlagTable flags;
  declare_run_options(sub, into, flags);
  std::vector<apply::RunOptions> bad(14, [] {
    apply::RunOptions o;
    o.cpus = "0";
    o.command = {"true"};
    return o;
  }());
  bad[0].command.clear();
  bad[1].interval_ms = 10;
  bad[2].follow = true;
  bad[3].stats = true;
  bad[4].local_rank = 0;
  bad[5].local_size = 2;
  bad[6].cpus.clear(), bad[6].gpus = 1;
  bad[7].cpus.clear(), bad[7].topology_file = "x.xml";
  bad[8].gpu_visibility = "narrow";
  bad[9].record_dir = "d";
  bad[10].ranks = "auto";
  bad[11].plan_path = "p.json", bad[11].cpus.clear(), bad[11].policy = "compact";
  bad[12].plan_path = "p.json";
  bad[13].by_name = true;
  for (std::size_t i = 0; i < bad.size(); ++i) {
    auto checked = apply::run_request(bad[i]);
    ASSERT_FALSE(checked) << "case " << i;
    EXPECT_FALSE(flags.flag_of(checked.error().input).empty())
        << "case " << i << ": member '" << checked.error().input << "' names no run flag";
  }
}

}  // namespace
}  // namespace threadmap::cli
