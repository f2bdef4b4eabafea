// The "machine_state" object every measurement document carries (latency, bench, report,
// tune): one writer, so its fields are spelled alike everywhere (docs/json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "src/core/machine_state.hpp"

namespace threadmap::render {

/// {"verdict","summary","evidence","guest","hypervisor","hypervisor_evidence","cpufreq_policy",
///  "cpus","cpu_count","others_busy_pct_before","idle_window_s","runnable_before",
///  "runnable_after","load1_before","load1_after","steal_pct","duration_s"}; unknown numbers
/// (-1) are null.
nlohmann::json machine_state_json(const MachineState& state);

}  // namespace threadmap::render
