// Rendering a placement plan: the assignment table with a reason per thread, the cost table
// against the hand-made baselines, and the plan JSON (schema "threadmap.plan/1") that
// `threadmap run --plan` reads.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "src/plan/planner.hpp"

namespace threadmap::render {

/// Header lines (spec, CPUs, model, solver), the thread/CPU/why table and the cost table.
std::string plan_text(const plan::Plan& plan);
/// {"schema":"threadmap.plan/1","assignments":[{"thread","cpus","why"}],"cost","model",
///  "baselines":{"sequential",...}, ...}; assignments in thread-creation order.
nlohmann::json plan_json(const plan::Plan& plan);

}  // namespace threadmap::render
