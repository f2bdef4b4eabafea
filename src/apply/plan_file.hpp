// Reading a placement plan (schema "threadmap.plan/1", written by `threadmap plan --json`).
#pragma once

#include <string>
#include <vector>

#include "src/core/planned_thread.hpp"
#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"

namespace threadmap::apply {

using threadmap::PlannedThread;  // one entry of "assignments" (src/core/planned_thread.hpp)

/// The part of a plan `run` and `watch` use: assignments in thread-creation order.
struct PlanFile {
  std::vector<PlannedThread> assignments;
  std::string model;  ///< cost model the plan was solved with ("" when absent)
};

/// Parses plan JSON text. `source` names the input in errors. Fails with EINVAL on a wrong
/// schema, a missing/ill-typed field, an empty or negative CPU list, or duplicate thread names.
Result<PlanFile> parse_plan(const std::string& text, const std::string& source);

/// Reads and parses a plan file. ENOENT (or the read error) when it cannot be read.
Result<PlanFile> read_plan_file(const std::string& path);

}  // namespace threadmap::apply
