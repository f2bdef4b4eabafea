// threadmap watch --follow: the threads of the processes a watched program starts (forked and
// exec'd, by a shell or by the program itself) are watched with their pid and command, the
// processes are listed, an ended one keeps its data; without --follow they are absent.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "tests/integration/run/run_helpers.hpp"

namespace {

using tm_test::run;

const std::string kTm = THREADMAP_BIN;
const std::string kProbe = FAMILY_PROBE;
// The probe's command name: its file name, which is 15 characters, the kernel's limit.
const std::string kProbeComm = "tm_family_probe";

nlohmann::json thread_named(const nlohmann::json& doc, const std::string& name) {
  for (const auto& t : doc["threads"])
    if (t["name"] == name) return t;
  return nullptr;
}

nlohmann::json process_with_pid(const nlohmann::json& doc, const nlohmann::json& pid) {
  for (const auto& p : doc["processes"])
    if (p["pid"] == pid) return p;
  return nullptr;
}

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(WatchFollow, SeesTheThreadsOfAShellsChildrenWithTheirProcess) {
  std::string json = tm_test::write_temp("follow.json", "");
  std::string svg = tm_test::write_temp("follow.svg", "");
  auto o = run(kTm + " watch --follow --interval 50 --json " + json + " --timeline " + svg +
               " -- sh -c '" + kProbe + " kidA 800 & " + kProbe + " kidB 800; wait'");
  ASSERT_EQ(o.status, 0) << o.err;
  auto doc = nlohmann::json::parse(tm_test::read_all(json));
  ASSERT_TRUE(doc["processes"].is_array()) << doc.dump();
  EXPECT_EQ(doc["processes"][0]["pid"], doc["pid"]);  // the watched shell comes first
  EXPECT_EQ(doc["processes"][0]["comm"], "sh");
  std::set<int> child_pids;
  for (const std::string name : {"kidA-0", "kidA-1", "kidB-0", "kidB-1"}) {
    auto t = thread_named(doc, name);
    ASSERT_FALSE(t.is_null()) << name << " missing: " << doc.dump();
    ASSERT_TRUE(t.contains("pid")) << t.dump();
    EXPECT_NE(t["pid"], doc["pid"]) << name;
    EXPECT_EQ(t["comm"], kProbeComm) << t.dump();
    auto p = process_with_pid(doc, t["pid"]);
    ASSERT_FALSE(p.is_null()) << "no process entry for " << t.dump();
    EXPECT_EQ(p["ppid"], doc["pid"]) << p.dump();
    EXPECT_EQ(p["comm"], kProbeComm) << p.dump();
    EXPECT_TRUE(ends_with(p["exe"].get<std::string>(), "/" + kProbeComm)) << p.dump();
    child_pids.insert(t["pid"].get<int>());
  }
  EXPECT_EQ(child_pids.size(), 2u);  // kidA and kidB are two processes
  // The summary names each child process before its threads.
  EXPECT_NE(o.err.find("process " + std::to_string(*child_pids.begin()) + " " + kProbeComm),
            std::string::npos)
      << o.err;
  EXPECT_NE(tm_test::read_all(svg).find("<svg"), std::string::npos);
}

TEST(WatchFollow, FollowsAChildThatExecsAnotherProgramAndKeepsItAfterItEnds) {
  // The probe forks; the child runs sh, which after 0.3 s execs the probe again: one process,
  // two programs. It ends 0.5 s before its parent.
  std::string json = tm_test::write_temp("follow_exec.json", "");
  auto o = run(kTm + " watch --follow --interval 50 --json " + json + " -- " + kProbe +
               " top 1300 sh -c 'sleep 0.3; exec " + kProbe + " kid 500'");
  ASSERT_EQ(o.status, 0) << o.err;
  auto doc = nlohmann::json::parse(tm_test::read_all(json));
  auto top = thread_named(doc, "top-0");
  ASSERT_FALSE(top.is_null()) << doc.dump();
  EXPECT_EQ(top["pid"], doc["pid"]);
  auto kid = thread_named(doc, "kid-1");
  ASSERT_FALSE(kid.is_null()) << doc.dump();
  EXPECT_NE(kid["pid"], doc["pid"]);
  auto p = process_with_pid(doc, kid["pid"]);
  ASSERT_FALSE(p.is_null()) << doc.dump();
  EXPECT_EQ(p["ppid"], doc["pid"]);
  // After the exec the process is the probe, not the shell it started as.
  EXPECT_EQ(p["comm"], kProbeComm) << p.dump();
  EXPECT_TRUE(ends_with(p["exe"].get<std::string>(), "/" + kProbeComm)) << p.dump();
  EXPECT_EQ(p["exited"], true) << p.dump();
  EXPECT_LT(p["last_s"].get<double>(), doc["processes"][0]["last_s"].get<double>());
  EXPECT_GT(kid["samples"].get<int>(), 2) << kid.dump();
}

TEST(WatchFollow, WithoutFollowTheChildrenAreAbsent) {
  std::string json = tm_test::write_temp("nofollow.json", "");
  auto o = run(kTm + " watch --interval 50 --json " + json + " -- sh -c '" + kProbe +
               " kidA 600 & " + kProbe + " kidB 600; wait'");
  ASSERT_EQ(o.status, 0) << o.err;
  auto doc = nlohmann::json::parse(tm_test::read_all(json));
  EXPECT_TRUE(thread_named(doc, "kidA-0").is_null()) << doc.dump();
  EXPECT_TRUE(thread_named(doc, "kidB-1").is_null()) << doc.dump();
  EXPECT_FALSE(doc.contains("processes"));
  EXPECT_FALSE(doc.contains("follow"));
  for (const auto& t : doc["threads"]) {
    EXPECT_FALSE(t.contains("pid")) << t.dump();
    EXPECT_FALSE(t.contains("comm")) << t.dump();
  }
}

// run --watch shares the watch: with --follow its summary (on stderr) lists the children
// the program started, with their threads; without it they are absent.
TEST(WatchFollow, RunWatchFollowListsTheChildrenInItsSummary) {
  const std::string family = " -- sh -c '" + kProbe + " kidA 600 & " + kProbe + " kidB 600; wait'";
  auto followed = run(kTm + " run --cpus 0 --watch --follow --interval 50" + family);
  ASSERT_EQ(followed.status, 0) << followed.err;
  EXPECT_NE(followed.err.find(" " + kProbeComm + " ("), std::string::npos) << followed.err;
  EXPECT_NE(followed.err.find("kidA-0"), std::string::npos) << followed.err;
  EXPECT_NE(followed.err.find("kidB-1"), std::string::npos) << followed.err;
  auto alone = run(kTm + " run --cpus 0 --watch --interval 50" + family);
  ASSERT_EQ(alone.status, 0) << alone.err;
  EXPECT_EQ(alone.err.find("kidA-0"), std::string::npos) << alone.err;
}

}  // namespace
