// `threadmap tune` end to end. Programs with a known best placement must pick it; the timing
// tests skip (saying so) when tune itself judged the machine busy around the runs, because then
// the scheduler, not the placement, decides (other builds share this 2-CPU VM).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/run/run_helpers.hpp"

namespace {

using tm_test::Output;
using tm_test::read_all;
using tm_test::run;

std::string temp_path(const std::string& what) {
  static int counter = 0;
  return "/tmp/tm_tune_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + what;
}

std::string bin() { return THREADMAP_BIN; }

// Runs tune with `args` and returns its JSON (empty on failure).
nlohmann::json tune_json(const std::string& args, Output* o) {
  std::string json = temp_path(".json");
  *o = run(bin() + " tune --json " + json + " " + args);
  std::string text = read_all(json);
  unlink(json.c_str());
  if (text.empty()) return {};
  return nlohmann::json::parse(text);
}

const nlohmann::json* candidate(const nlohmann::json& j, const std::string& name) {
  for (const auto& c : j["candidates"])
    if (c["name"] == name) return &c;
  return nullptr;
}

// True when tune saw the machine busy around any kept run.
bool busy(const nlohmann::json& j) {
  for (const auto& c : j["candidates"])
    if (c["disturbed_runs_kept"].get<int>() > 0) return true;
  return false;
}

bool two_cpus() { return sysconf(_SC_NPROCESSORS_ONLN) >= 2; }

#define SKIP_IF_UNSUPPORTED()                        \
  do {                                               \
    if (!two_cpus()) GTEST_SKIP() << "needs 2 CPUs"; \
  } while (0)

#ifdef THREADMAP_SANITIZED
#define SKIP_IF_SANITIZED() GTEST_SKIP() << "the programs would need the sanitizer runtime"
#else
#define SKIP_IF_SANITIZED() (void)0
#endif

}  // namespace

// Two threads handing a token through a condition variable: every hand-off is a wake-up, local
// on one core, an inter-processor wake-up across two. tune must pick one-core, and say how.
TEST(TuneIntegration, TokenPassingPairPicksOneCore) {
  SKIP_IF_UNSUPPORTED();
  SKIP_IF_SANITIZED();
  Output o;
  auto j = tune_json(
      std::string("--candidates os,compact,one-core --budget 8s -- ") + TOKEN_PAIR + " 4000", &o);
  ASSERT_EQ(o.status, 0) << o.err;
  ASSERT_FALSE(j.is_null());
  // Pinned apart is slower than one core whatever the load (both are pinned).
  const auto* compact = candidate(j, "compact");
  const auto* one_core = candidate(j, "one-core");
  ASSERT_TRUE(compact && one_core);
  EXPECT_LT((*one_core)["median"].get<double>(), (*compact)["median"].get<double>());
  if (busy(j)) GTEST_SKIP() << "machine busy around the runs: the OS placement is not judged";
  EXPECT_EQ(j["best"], "one-core") << o.out;
  EXPECT_EQ((*one_core)["verdict_vs_os"]["word"], "faster");
  EXPECT_NE(o.out.find("threadmap run --cpus 0 --policy compact -- "), std::string::npos) << o.out;
  // The whole-process line of a tool installed here; no OpenMP variables for a program that
  // links no OpenMP runtime.
  EXPECT_TRUE(o.out.find("taskset -c 0 ") != std::string::npos ||
              o.out.find("numactl --physcpubind=0 ") != std::string::npos)
      << o.out;
  EXPECT_EQ(o.out.find("OMP_PLACES"), std::string::npos) << o.out;
}

// Two independent compute threads: on one CPU they take turns, so separate CPUs win; tune must
// not pick one-core, and must call it slower.
TEST(TuneIntegration, ComputePairPicksSeparateCpus) {
  SKIP_IF_UNSUPPORTED();
  SKIP_IF_SANITIZED();
  Output o;
  auto j = tune_json(
      std::string("--candidates os,compact,one-core --budget 8s -- ") + COMPUTE_PAIR + " 40", &o);
  ASSERT_EQ(o.status, 0) << o.err;
  ASSERT_FALSE(j.is_null());
  if (busy(j)) GTEST_SKIP() << "machine busy around the runs: both CPUs were not ours";
  // Pinned apart against pinned together: separate CPUs finish first on a quiet machine.
  EXPECT_LT((*candidate(j, "compact"))["median"].get<double>(),
            (*candidate(j, "one-core"))["median"].get<double>())
      << o.out;
  EXPECT_NE(j["best"], "one-core") << o.out;
  EXPECT_NE(j["leader"], "one-core") << o.out;
  EXPECT_EQ((*candidate(j, "one-core"))["verdict_vs_os"]["word"], "slower") << o.out;
}

// One thread of arithmetic: nothing to gain from a placement, so "os" stays best and the
// pinned candidate shows no clear difference.
TEST(TuneIntegration, NoPlacementSensitivityKeepsOs) {
  SKIP_IF_SANITIZED();
  Output o;
  auto j = tune_json(
      std::string("--candidates os,compact --budget 6s -- ") + SINGLE_COMPUTE + " 15", &o);
  ASSERT_EQ(o.status, 0) << o.err;
  ASSERT_FALSE(j.is_null());
  if (busy(j)) GTEST_SKIP() << "machine busy around the runs";
  EXPECT_NE(j["best"], "compact") << o.out;
  // Settled as no clear difference, or the budget ran out first: never a placement crowned.
  if (!j["decided"].get<bool>()) {
    EXPECT_NE(o.out.find("to decide: rerun with"), std::string::npos) << o.out;
    return;
  }
  EXPECT_EQ(j["best"], "os") << o.out;
  EXPECT_EQ((*candidate(j, "compact"))["verdict_vs_os"]["word"], "no clear difference") << o.out;
  EXPECT_NE(o.out.find("no placement beats the OS here"), std::string::npos) << o.out;
}

// A program that refuses to run on a single CPU: every pinned candidate fails, is reported with
// its exit status and last output, and is never ranked; os still is.
TEST(TuneIntegration, FailingCandidateIsReportedAndSkipped) {
  SKIP_IF_SANITIZED();
  Output o;
  std::string keep = temp_path("_out");
  ASSERT_EQ(mkdir(keep.c_str(), 0700), 0);
  auto j = tune_json("--keep-output " + keep +
                         std::string(" --candidates os,one-core --budget 4s --runs 3 -- ") +
                         SINGLE_COMPUTE + " 2 fail-on-one-cpu",
                     &o);
  ASSERT_EQ(o.status, 0) << o.err;
  ASSERT_FALSE(j.is_null());
  const auto* failed = candidate(j, "one-core");
  ASSERT_TRUE(failed);
  EXPECT_TRUE((*failed)["failed"].get<bool>());
  EXPECT_TRUE((*failed)["verdict_vs_os"].is_null());
  EXPECT_NE((*failed)["failure"].get<std::string>().find("exit status 3"), std::string::npos);
  EXPECT_EQ(j["best"], "os");
  EXPECT_EQ(j["leader"], "os");
  EXPECT_NE(o.out.find("failed: one-core: exit status 3 on run 1"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("refusing to run on one CPU"), std::string::npos) << o.out;
  EXPECT_GE((*candidate(j, "os"))["samples"].size(), 3u);
  // The failing candidate's output is kept for the record, beside the others'.
  EXPECT_NE(read_all(keep + "/one-core.out").find("refusing to run on one CPU"), std::string::npos);
  EXPECT_NE(read_all(keep + "/os.out").find("result="), std::string::npos);
  unlink((keep + "/one-core.out").c_str());
  unlink((keep + "/os.out").c_str());
  rmdir(keep.c_str());
}

// A printed number as the metric, higher is better: the samples are the program's numbers.
TEST(TuneIntegration, RegexMetricReadsThePrintedNumber) {
  SKIP_IF_SANITIZED();
  Output o;
  auto j = tune_json(std::string("--candidates os --runs 3 --budget 3s --metric "
                                 "'handoffs/s=([0-9]+)' --higher -- ") +
                         TOKEN_PAIR + " 2000",
                     &o);
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(j["metric"]["kind"], "regex");
  EXPECT_TRUE(j["metric"]["higher_is_better"].get<bool>());
  for (const auto& s : (*candidate(j, "os"))["samples"]) EXPECT_GT(s.get<double>(), 1000.0);
  EXPECT_NE(j["output"]["text"].get<std::string>().find("handoffs/s="), std::string::npos);
}

// The Cpus_allowed_list lines a job's ranks printed (one per rank), sorted.
std::vector<std::string> allowed_lists(const std::string& output) {
  std::vector<std::string> out;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("Cpus_allowed_list:", 0) == 0) out.push_back(line.substr(line.find('\t') + 1));
  std::sort(out.begin(), out.end());
  return out;
}

// A job under Open MPI's mpirun: the launcher runs the whole job once per candidate, and each
// rank applies the candidate inside its own share (under os, the launcher alone, with
// --bind-to none, every rank may use every CPU). A winner or "no placement beats the OS" comes
// out, judged on the job's wall time, or "undecided" with what would decide it.
TEST(TuneIntegration, RanksAutoRunsTheWholeJobUnderEachCandidate) {
  SKIP_IF_UNSUPPORTED();
  SKIP_IF_SANITIZED();
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "mpirun not installed (scripts/setup.sh installs openmpi-bin)";
  // Root is allowed through Open MPI's own switches, as in tests/integration/cluster.
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  std::string keep = temp_path("_job");
  ASSERT_EQ(mkdir(keep.c_str(), 0700), 0);
  const std::string launcher = "mpirun -np 2 --bind-to none --oversubscribe";
  Output o;
  auto j = tune_json("--ranks auto --launcher '" + launcher +
                         "' --candidates os,compact --runs 4 " + "--budget 8s --keep-output " +
                         keep + " -- sh -c 'grep ^Cpus_allowed_list: /proc/self/status; exec " +
                         TOKEN_PAIR + " 2000'",
                     &o);
  ASSERT_EQ(o.status, 0) << o.err << o.out;
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["launcher"], (std::vector<std::string>{"mpirun", "-np", "2", "--bind-to", "none",
                                                     "--oversubscribe"}));
  // Interleaved rounds: every candidate ran the whole job in every round.
  for (const char* name : {"os", "compact"}) {
    const auto* c = candidate(j, name);
    ASSERT_TRUE(c) << name;
    EXPECT_FALSE((*c)["failed"].get<bool>()) << name << ": " << o.out;
    EXPECT_EQ((*c)["samples"].size(), j["rounds"].get<std::size_t>()) << name;
  }
  EXPECT_GE(j["rounds"].get<int>(), 1);
  EXPECT_EQ((*candidate(j, "compact"))["how"],
            launcher +
                " threadmap run --ranks auto --policy compact -- sh -c 'grep "
                "^Cpus_allowed_list: /proc/self/status; exec " +
                TOKEN_PAIR + " 2000'");
  // Every rank ran the program: two handoff counts in each candidate's output.
  const std::string os_out = read_all(keep + "/os.out");
  const std::string compact_out = read_all(keep + "/compact.out");
  std::vector<std::string> os_lists = allowed_lists(os_out), mine = allowed_lists(compact_out);
  ASSERT_EQ(os_lists.size(), 2u) << os_out;
  ASSERT_EQ(mine.size(), 2u) << compact_out;
  // The launcher alone binds nothing here; under compact each rank took a share of its own.
  EXPECT_EQ(os_lists[0], os_lists[1]) << os_out;
  EXPECT_NE(mine[0], mine[1]) << compact_out;
  EXPECT_NE(mine[0], os_lists[0]) << compact_out;
  EXPECT_NE(mine[1], os_lists[0]) << compact_out;
  // The table says what each rank's run adds, and that os is the launcher alone.
  EXPECT_NE(o.out.find("  os: the launcher alone"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("  compact: --ranks auto --policy compact"), std::string::npos) << o.out;
  // A verdict, or (4 rounds, disturbed ones left out) undecided with what would decide it:
  // never a best from too little data.
  if (j["decided"].get<bool>()) {
    EXPECT_TRUE(j["best"] == "os" || j["best"] == "compact") << o.out;
    EXPECT_NE(o.out.find("best: "), std::string::npos) << o.out;
    if (j["best"] == "compact")
      EXPECT_NE(o.out.find("reproduce compact:\n# the job"), std::string::npos) << o.out;
    else
      EXPECT_NE(o.out.find("no placement beats the OS here"), std::string::npos) << o.out;
  } else {
    EXPECT_TRUE(j["best"].is_null()) << o.out;
    EXPECT_EQ(o.out.find("best: "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("undecided: "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("to decide: "), std::string::npos) << o.out;
  }
  unlink((keep + "/os.out").c_str());
  unlink((keep + "/compact.out").c_str());
  rmdir(keep.c_str());
}

// Bad input: one line each, exit 2 for a bad command line (nothing ran), 1 for failed work.
TEST(TuneIntegration, BadInputOneLineEach) {
  SKIP_IF_SANITIZED();
  struct Row {
    std::string args;
    int status;
    std::string says;
  };
  const std::string prog = SINGLE_COMPUTE;
  const Row rows[] = {
      {"tune", 2, "no command"},
      {"tune --candidates os,fastest -- " + prog + " 1", 2, "unknown candidate 'fastest'"},
      {"tune --metric 'ops=[0-9]+' --higher -- " + prog + " 1", 2, "capture group"},
      {"tune --metric 'ops=([0-9]+)' -- " + prog + " 1", 2, "--higher"},
      {"tune --budget soon -- " + prog + " 1", 2, "not a duration"},
      {"tune --candidates os --metric 'ops=([0-9]+)' --higher -- " + prog + " 1", 1,
       "matched nothing"},
      {"tune --candidates os,one-core --budget 3s -- " + prog + " 1 fail", 1,
       "failed under every candidate"},
      {"tune --ranks 0/2 --launcher mpirun -- " + prog + " 1", 2, "takes only 'auto'"},
      {"tune --ranks auto -- " + prog + " 1", 2, "needs the launcher"},
      {"tune --launcher 'mpirun -np 2' -- " + prog + " 1", 2, "applies to a job only"},
      // An output that cannot be written is refused before the first run.
      {"tune --json /dev/full -- " + prog + " 1", 1, "cannot write '/dev/full'"},
      {"tune --ranks auto --launcher \"mpirun 'x\" -- " + prog + " 1", 2, "unclosed '"},
      {"tune --ranks auto --launcher mpirun --candidates os,one-core -- " + prog + " 1", 2,
       "names CPUs of the whole machine"},
  };
  for (const Row& r : rows) {
    Output o = run(bin() + " " + r.args);
    EXPECT_EQ(o.status, r.status) << r.args << "\n" << o.err;
    // Exactly one "threadmap:" line (progress lines start with "tune:").
    EXPECT_EQ(o.err.rfind("threadmap: ", 0), 0u) << r.args << "\n" << o.err;
    // One line: progress lines ("tune: ...") aside, nothing else on stderr.
    int lines = 0;
    std::istringstream err(o.err);
    for (std::string line; std::getline(err, line);)
      if (line.rfind("tune: ", 0) != 0) ++lines;
    EXPECT_EQ(lines, 1) << r.args << "\n" << o.err;
    EXPECT_NE(o.err.find(r.says), std::string::npos) << r.args << "\n" << o.err;
  }
  // The regex row names the program's last output line.
  Output o =
      run(bin() + " tune --candidates os --metric 'ops=([0-9]+)' --higher -- " + prog + " 1");
  EXPECT_NE(o.err.find("result="), std::string::npos) << o.err;
}

// Ctrl-C (here SIGINT from `kill`) ends the loop: what was found so far is printed, exit 130.
TEST(TuneIntegration, InterruptPrintsWhatWasFound) {
  SKIP_IF_SANITIZED();
  Output o = run("timeout --preserve-status -s INT 2 " + bin() +
                 " tune --candidates os --budget 60s --runs 1000 -- " + SINGLE_COMPUTE + " 10");
  EXPECT_EQ(o.status, 130) << o.err;
  EXPECT_NE(o.out.find("interrupted"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("best: os"), std::string::npos) << o.out;
}
