// The conventions every subcommand shares (docs/architecture.md): usage errors exit 2 with one
// line, failures exit 1, a failed write to stdout is a failure, --version is the CMake version,
// and a command that fails leaves no directory it created.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../common/run_command.hpp"

namespace {

using tm_test::run;

std::string tm(const std::string& args) { return std::string(THREADMAP_BIN) + " " + args; }

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

TEST(Conventions, VersionComesFromTheBuild) {
  auto r = run(tm("--version"));
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find(std::string("threadmap ") + THREADMAP_VERSION_EXPECTED), std::string::npos)
      << r.out;
}

TEST(Conventions, UsageErrorsExitTwoWithOneLine) {
  for (const char* args :
       {"frobnicate", "topo --no-such-flag", "run --cpus 0 --plan p.json -- true",
        "run --cpus 0 --policy spread -- true", "run -- true", "watch --by-name 1"}) {
    auto r = run(tm(args));
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("threadmap: ", 0), 0u) << args << ": " << r.err;
  }
}

TEST(Conventions, FailuresExitOne) {
  for (const char* args :
       {"topo --topology /nonexistent.xml", "run --plan /nonexistent.json -- true",
        "plan --spec /nonexistent.json"}) {
    auto r = run(tm(args));
    EXPECT_EQ(r.status, 1) << args << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1) << args << ": " << r.err;
  }
}

TEST(Conventions, AFailedWriteToStdoutIsAFailure) {
  auto r = run(tm("topo --summary > /dev/full"));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("cannot write to stdout"), std::string::npos) << r.err;
}

TEST(Conventions, AFailedReportLeavesNoDirectoryBehind) {
  const std::string dir = testing::TempDir() + "tm_failed_report_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  auto r = run(tm("report --quick --latency /nonexistent/matrix.csv --out " + dir));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir)) << dir;
}

TEST(Conventions, DashReadsStdinWhereAFileIsRead) {
  const std::string data = THREADMAP_TEST_DATA;
  auto topo =
      run(tm("topo --summary --topology - < " + data + "/topologies/amd-2x-epyc7763-zen3.xml"));
  EXPECT_EQ(topo.status, 0) << topo.err;
  EXPECT_NE(topo.out.find("2 packages"), std::string::npos) << topo.out;  // 2 x EPYC 7763
  auto matrix = run(tm("latency --load - < " + data + "/latency/AMD_Ryzen_9_7950X.csv"));
  EXPECT_EQ(matrix.status, 0) << matrix.err;
  EXPECT_NE(matrix.out.find("stdin"), std::string::npos);
}

TEST(Conventions, InputsAreBoundedAndDirectoriesSaySo) {
  for (const char* args : {"plan --spec /dev/zero", "latency --load /dev/zero",
                           "run --plan /dev/zero -- true", "topo --topology /dev/zero"}) {
    auto r = run(tm(args));
    EXPECT_EQ(r.status, 1) << args;
    EXPECT_EQ(lines(r.err), 1) << args << ": " << r.err;
    EXPECT_NE(r.err.find("larger than"), std::string::npos) << args << ": " << r.err;
  }
  for (const char* args : {"plan --spec /tmp", "latency --load /tmp", "topo --topology /tmp"}) {
    auto r = run(tm(args));
    EXPECT_EQ(r.status, 1) << args;
    EXPECT_NE(r.err.find("Is a directory"), std::string::npos) << args << ": " << r.err;
  }
}

}  // namespace
