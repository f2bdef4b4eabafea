// The report's advice: recommended CPUs for communicating and for compute threads (from the
// planner, on the measured latency when there is a matrix of this machine, else the topology),
// SMT guidance backed by the smt bench, the thread cache when the spawn bench shows it pays,
// and the commands that apply each recommendation.
#pragma once

#include "src/report/report_data.hpp"

namespace threadmap::report {

/// Builds the advice from the collected parts of `report` (topology, latency, benches).
/// Unavailable when the topology is missing or the planner fails (with its message).
AdvicePart make_advice(const MachineReport& report, const CpuSet& usable);

}  // namespace threadmap::report
