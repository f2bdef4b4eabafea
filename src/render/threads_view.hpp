// Rendering the threads of a process (threadmap ps) and the outcome of pinning them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "threadmap/process.hpp"

namespace threadmap::render {

/// Table: tid, name, state, CPU% (over a `sample_s` sample; "-" when not sampled), CPU time,
/// allowed CPUs, last CPU, voluntary/involuntary switches.
std::string threads_table(const std::vector<ThreadInfo>& threads, double sample_s = 0);
/// JSON, schema "threadmap.threads/1" (cpu_percent null when not sampled).
nlohmann::json threads_json(pid_t pid, const std::string& process_name,
                            const std::vector<ThreadInfo>& threads, double sample_s = 0);
/// Lines for a pin outcome: one per thread pinned, vanished or failed, and a summary line.
std::string pin_outcome_text(pid_t pid, const CpuSet& cpus, const PinOutcome& outcome);
/// JSON, schema "threadmap.pin/1".
nlohmann::json pin_outcome_json(pid_t pid, const CpuSet& cpus, const PinOutcome& outcome);

/// The threads that could not be pinned, one line per cause (not per thread: without permission
/// every thread fails alike): "cannot pin 12 threads of process 4242 (tids 4242, 4243, ... 8
/// more) to 0-1: Operation not permitted". A single thread keeps its own message.
std::vector<std::string> pin_failure_lines(pid_t pid, const CpuSet& cpus,
                                           const PinOutcome& outcome);

}  // namespace threadmap::render
