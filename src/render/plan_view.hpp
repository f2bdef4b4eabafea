// Rendering a placement plan: the assignment table with a reason per thread and the cost table
// against the hand-made baselines. The plan JSON (schema "threadmap.plan/1") has its one home
// with its reader in plan/plan_file.
#pragma once

#include <string>

#include "src/plan/planner.hpp"

namespace threadmap::render {

/// Header lines (spec, CPUs, model, solver), the thread/CPU/why table and the cost table.
std::string plan_text(const plan::Plan& plan);

}  // namespace threadmap::render
