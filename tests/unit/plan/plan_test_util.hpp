// Helpers shared by the planner tests: the shared machine files and planning from JSON text.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "src/latency/matrix.hpp"
#include "src/plan/planner.hpp"
#include "tests/unit/common/recorded_data.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::plan::test {

using test_data::matrix_files;
using test_data::topology_files;

inline Topology load_topology(const std::string& path) {
  auto t = Topology::load_xml(path);
  EXPECT_TRUE(t.ok()) << path << ": " << (t.ok() ? "" : t.error().message);
  return std::move(*t);
}

inline latency::Matrix load_matrix(const std::string& path) {
  auto m = latency::load_matrix(path);
  EXPECT_TRUE(m.ok()) << path << ": " << (m.ok() ? "" : m.error().message);
  return std::move(*m);
}

/// Plans `json` on the given machine; fails the test on error.
inline Plan plan_json(const std::string& json, const Topology* topo,
                      const latency::Matrix* matrix) {
  auto spec = parse_spec(json, "test spec");
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error().message);
  PlanInputs in;
  in.topology = topo;
  in.matrix = matrix;
  in.solve.local_time_limit_s = 5;  // generous: results must not depend on the CI's speed
  in.solve.exact_time_limit_s = 20;
  auto plan = make_plan(*spec, in);
  EXPECT_TRUE(plan.ok()) << (plan.ok() ? "" : plan.error().message);
  return plan.ok() ? std::move(*plan) : Plan{};
}

/// Error message of planning `json` (empty when it unexpectedly succeeds).
inline std::string plan_error(const std::string& json, const Topology* topo) {
  auto spec = parse_spec(json, "test spec");
  if (!spec) return spec.error().message;
  PlanInputs in;
  in.topology = topo;
  auto plan = make_plan(*spec, in);
  return plan.ok() ? std::string() : plan.error().message;
}

inline int cpu_of(const Plan& plan, const std::string& thread) {
  for (const auto& a : plan.assignments)
    if (a.thread == thread) return a.cpus.first();
  ADD_FAILURE() << "no thread " << thread;
  return -1;
}

}  // namespace threadmap::plan::test
