// plan_request and plan_from_request: `threadmap plan` checked and as one call. A refusal says
// which input it is about and whose fault it is (the CLI names the flag and picks the status from
// them, so the message itself must not name a flag); an unstable matrix is not planned on: the
// topology stands in and the plan says why; a stable matrix alone stands for the machine.
#include "src/plan/plan_request.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace threadmap::plan::test {
namespace {

const std::string kData = THREADMAP_TEST_DATA;
const std::string kVm = kData + "/topologies/this-vm-kvm-2vcpu-epyc.xml";

// A file under the test's scratch directory holding `text`; returns its path.
std::string scratch_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "plan_request_" + name;
  std::ofstream(path) << text;
  return path;
}

// A threadmap.latency/1 matrix over CPUs 0-1 whose one pair moved between passes.
std::string moved_matrix_file() {
  return scratch_file("moved.json",
                      R"({"schema": "threadmap.latency/1", "cpus": [0, 1],
                          "matrix": [[0, 27], [27, 0]],
                          "stability": {"pairs_moved": 1, "pairs_checked": 1}})");
}

void expect_refused(const Result<PlannedRequest>& planned, const std::string& member, Fault fault,
                    const std::string& phrase) {
  ASSERT_FALSE(planned.ok());
  EXPECT_EQ(planned.error().input, member) << planned.error().message;
  EXPECT_EQ(planned.error().fault, fault) << planned.error().message;
  EXPECT_NE(planned.error().message.find(phrase), std::string::npos) << planned.error().message;
  EXPECT_EQ(planned.error().message.find("bad --"), std::string::npos)
      << "the library names the value, the CLI the flag: " << planned.error().message;
}

TEST(PlanRequest, ARefusalSaysWhichInputItIsAbout) {
  PlanRequest bad_policy;
  bad_policy.threads = 2;
  bad_policy.policy = "nosuch";
  bad_policy.topology_file = kVm;
  expect_refused(plan_from_request(bad_policy), "policy", Fault::input, "'nosuch'");

  PlanRequest no_spec;
  no_spec.spec_file = ::testing::TempDir() + "plan_request_none.json";
  no_spec.topology_file = kVm;
  expect_refused(plan_from_request(no_spec), "spec_file", Fault::work, "No such file");

  PlanRequest no_matrix;
  no_matrix.pairs = 1;
  no_matrix.latency_file = ::testing::TempDir() + "plan_request_none.csv";
  expect_refused(plan_from_request(no_matrix), "latency_file", Fault::work, "No such file");

  PlanRequest no_topology;
  no_topology.pairs = 1;
  no_topology.topology_file = ::testing::TempDir() + "plan_request_none.xml";
  expect_refused(plan_from_request(no_topology), "topology_file", Fault::work, "No such file");

  PlanRequest too_many;
  too_many.pairs = 2;  // 4 threads on 2 CPUs without oversubscription
  too_many.topology_file = kVm;
  expect_refused(plan_from_request(too_many), "", Fault::work, "4 threads need 4 CPUs");

  PlanRequest bad_allowed;
  bad_allowed.pairs = 1;
  bad_allowed.allowed = "77";
  bad_allowed.topology_file = kVm;
  // A CPU the machine planned for lacks is the value's fault, as with plan --ranks.
  expect_refused(plan_from_request(bad_allowed), "allowed", Fault::input, "CPU 77");
}

TEST(PlanRequest, AnUnstableMatrixFallsBackToTheTopologyWithTheReason) {
  PlanRequest request;
  request.pairs = 1;
  request.latency_file = moved_matrix_file();
  request.topology_file = kVm;
  auto planned = plan_from_request(request);
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  ASSERT_TRUE(planned->topology.has_value());
  EXPECT_NE(planned->plan.model.find("topology distance"), std::string::npos)
      << planned->plan.model;
  EXPECT_NE(planned->plan.model.find("not used"), std::string::npos) << planned->plan.model;
  EXPECT_NE(planned->plan.model.find("not stable"), std::string::npos) << planned->plan.model;
}

TEST(PlanRequest, AnUnstableMatrixAloneFallsBackToThisMachine) {
  PlanRequest request;
  request.pairs = 1;
  request.oversubscribe = true;  // this machine may have a single allowed CPU
  request.latency_file = moved_matrix_file();
  request.isolated_file = scratch_file("isolated", "\n");  // none, whatever the host says
  auto planned = plan_from_request(request);
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  ASSERT_TRUE(planned->topology.has_value());
  EXPECT_TRUE(planned->topology->is_this_machine());
  EXPECT_NE(planned->plan.model.find("not used"), std::string::npos) << planned->plan.model;
}

TEST(PlanRequest, AStableMatrixAloneStandsForTheMachine) {
  PlanRequest request;
  request.pairs = 2;
  request.latency_file = kData + "/latency/AMD_Ryzen_9_5950X_3.40_GHz.csv";
  auto planned = plan_from_request(request);
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_FALSE(planned->topology.has_value());
  EXPECT_NE(planned->plan.model.find("measured latency"), std::string::npos) << planned->plan.model;
  EXPECT_EQ(planned->plan.assignments.size(), 4u);
}

TEST(PlanRequest, TheCommandLineOverridesTheSpecsConstraints) {
  PlanRequest request;
  request.spec_file = scratch_file("spec.json", R"({"threads": [{"name": "a"}, {"name": "b"}],
                                                   "constraints": {"allowed": "0"}})");
  request.topology_file = kVm;
  request.allowed = "1";
  request.oversubscribe = true;
  auto planned = plan_from_request(request);
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  ASSERT_EQ(planned->plan.assignments.size(), 2u);
  for (const auto& thread : planned->plan.assignments) EXPECT_EQ(thread.cpus.first(), 1);
}

TEST(PlanRequest, TheOptionsGetTheirDefaultsOnce) {
  PlanOptions options;
  options.threads = 4;
  auto request = plan_request(options);
  ASSERT_TRUE(request.ok()) << request.error().message;
  EXPECT_DOUBLE_EQ(request->time_limit_s, 1.5);
  EXPECT_EQ(request->min_steps, kDefaultMinSteps);
  EXPECT_EQ(request->seed, 1u);
  EXPECT_FALSE(request->format.has_value());
  options.export_format = "numactl";
  options.allowed = "0-1";
  options.seed = 9;
  options.min_steps = 0;  // given as 0: the time limit alone, not the default
  request = plan_request(options);
  ASSERT_TRUE(request.ok()) << request.error().message;
  EXPECT_EQ(request->format, ExportFormat::numactl);
  EXPECT_EQ(request->allowed, "0-1");
  EXPECT_EQ(request->seed, 9u);
  EXPECT_EQ(request->min_steps, 0u);
  options.export_format = "hwloc-bind";
  auto unknown = plan_request(options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().input, "export_format");
  EXPECT_EQ(unknown.error().fault, Fault::input);
}

}  // namespace
}  // namespace threadmap::plan::test
