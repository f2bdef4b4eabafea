// The children of a process found both ways (children files and the stat scan), on children
// this test forks, and who a process is (parent, name, executable).
#include "src/os/process_tree.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace threadmap::os {
namespace {

// A child that sleeps until killed; reaped at the end of the test.
struct SleepingChild {
  pid_t pid = -1;
  SleepingChild() {
    pid = fork();
    if (pid == 0) {
      execlp("sleep", "sleep", "30", static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~SleepingChild() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

bool contains(const std::vector<pid_t>& pids, pid_t pid) {
  return std::find(pids.begin(), pids.end(), pid) != pids.end();
}

TEST(ProcessTree, ChildrenFoundByTheStatScan) {
  SleepingChild a, b;
  ASSERT_GT(a.pid, 0);
  ASSERT_GT(b.pid, 0);
  auto children = list_child_processes(getpid(), ChildLookup::stat_scan);
  ASSERT_TRUE(children) << children.error().message;
  EXPECT_TRUE(contains(*children, a.pid));
  EXPECT_TRUE(contains(*children, b.pid));
  EXPECT_TRUE(std::is_sorted(children->begin(), children->end()));
  EXPECT_FALSE(contains(*children, getpid()));
}

TEST(ProcessTree, ChildrenFoundByTheChildrenFiles) {
  if (!have_children_files()) GTEST_SKIP() << "kernel without /proc/PID/task/TID/children";
  SleepingChild a;
  auto children = list_child_processes(getpid(), ChildLookup::children_files);
  ASSERT_TRUE(children) << children.error().message;
  EXPECT_TRUE(contains(*children, a.pid));
  // Both ways agree.
  auto scanned = list_child_processes(getpid(), ChildLookup::stat_scan);
  ASSERT_TRUE(scanned);
  EXPECT_EQ(*children, *scanned);
}

TEST(ProcessTree, IdentityAfterExec) {
  SleepingChild a;
  // The child execs "sleep" right after the fork: wait until its name says it did.
  Result<ProcessIdentity> who = Error::invalid("not read");
  for (int i = 0; i < 200; ++i) {
    who = read_process_identity(a.pid);
    if (who && who->comm == "sleep") break;
    usleep(5000);
  }
  ASSERT_TRUE(who) << who.error().message;
  EXPECT_EQ(who->pid, a.pid);
  EXPECT_EQ(who->ppid, getpid());
  EXPECT_EQ(who->comm, "sleep");
  auto exe = read_executable_path(a.pid);
  ASSERT_TRUE(exe) << exe.error().message;
  EXPECT_NE(exe->find("sleep"), std::string::npos) << *exe;
}

TEST(ProcessTree, NoSuchProcess) {
  // pid_max is at most 4194304: a pid above it never exists.
  auto children = list_child_processes(4194305 + 10);
  ASSERT_FALSE(children);
  EXPECT_EQ(children.error().code.value(), ESRCH);
  EXPECT_EQ(read_process_identity(4194315).error().code.value(), ESRCH);
  EXPECT_FALSE(read_executable_path(4194315));
  EXPECT_FALSE(list_child_processes(0));
}

}  // namespace
}  // namespace threadmap::os
