// How a placement's cost reads against the plan's, for the cost tables: the ratio of their
// totals, or why there is none. Judged here so that the views only draw it.
#pragma once

#include "src/plan/problem.hpp"

namespace threadmap::plan {

struct VersusPlan {
  enum class Kind {
    ratio,       ///< `ratio` = placement total / plan total
    infeasible,  ///< the placement breaks more rules than the plan: its total leaves that out
    worse,       ///< the plan costs nothing and the placement something
    same,        ///< both cost nothing
  };
  Kind kind = Kind::same;
  double ratio = 0;
};

/// `placement` against `plan`. A placement that breaks more rules than the plan is not a
/// cheaper answer to the same question, whatever its total.
VersusPlan versus_plan(const CostBreakdown& placement, const CostBreakdown& plan);

}  // namespace threadmap::plan
