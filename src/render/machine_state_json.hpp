// The "machine_state" object every measurement document carries (latency, bench, report,
// tune): one writer, so its fields are spelled alike everywhere (docs/json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "src/core/machine_state.hpp"
#include "src/core/process_binding.hpp"

namespace threadmap::render {

/// {"verdict","summary","evidence","guest","hypervisor","hypervisor_evidence","cpufreq_policy",
///  "cpus","cpu_count","others_busy_pct_before","idle_window_s","runnable_before",
///  "runnable_after","load1_before","load1_after","steal_pct","duration_s"}; unknown numbers
/// (-1) are null.
nlohmann::json machine_state_json(const MachineState& state);

/// {"affinity","cgroup","machine" (kernel lists),"launcher" (null when none seen),"narrower",
///  "confined","finding" (null when neither)}: whether the measuring process was bound narrower
/// than its cgroup allows (docs/json.md, "binding").
nlohmann::json binding_json(const ProcessBinding& binding);

}  // namespace threadmap::render
