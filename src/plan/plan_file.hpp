// The placement plan file (schema "threadmap.plan/1", docs/json.md): its writer (`threadmap plan
// --json` / `-o FILE`) and its reader (`run --plan`, `watch --plan`, tune's `plan:FILE`) live
// here together, with the planner whose result it holds, so the two cannot drift apart.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/core/planned_thread.hpp"
#include "src/plan/planner.hpp"
#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"

namespace threadmap::plan {

using threadmap::PlannedThread;  // one entry of "assignments" (src/core/planned_thread.hpp)

/// The part of a plan `run` and `watch` use: assignments in thread-creation order.
struct PlanFile {
  std::vector<PlannedThread> assignments;
  std::string model;  ///< cost model the plan was solved with ("" when absent)
};

/// The plan as written: {"schema":"threadmap.plan/1","assignments":[{"thread","cpus","why",
/// "memory_node"?}],"cost","model","baselines":{"sequential",...}, ...}; assignments in
/// thread-creation order. parse_plan reads it back.
nlohmann::json plan_json(const Plan& plan);

/// Parses plan JSON text. `source` names the input in errors. Fails with EINVAL on a wrong
/// schema, a missing/ill-typed field, an empty or negative CPU list, a CPU or memory node past
/// what tm-pin/1 can carry (the plan is run through it), or duplicate thread names.
Result<PlanFile> parse_plan(const std::string& text, const std::string& source);

/// Reads and parses a plan file. ENOENT (or the read error) when it cannot be read.
Result<PlanFile> read_plan_file(const std::string& path);

}  // namespace threadmap::plan
