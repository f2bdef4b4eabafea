// Rendering a seed experiment's result: the side-by-side terminal table and the JSON document
// (schema "threadmap.bench/1", every field documented in docs/bench-and-report.md).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/experiments/bench_result.hpp"

namespace threadmap::render {

/// The table: one row per variant with median, min-max, spread and ratio to its baseline, then
/// counters (when any), unavailable variants with their reasons, the notes and the published
/// result. Ends in '\n'.
std::string bench_text(const experiments::BenchResult& result);

/// The JSON document for one bench.
nlohmann::json bench_json(const experiments::BenchResult& result);

/// A value in a bench's unit for people: "1.32 ms", "15.5 M op/s", "158.9 k threads/s".
std::string bench_value_text(double value, const std::string& unit);

/// The unit of `variant`'s values: its own when it counts something else than the bench does
/// (the spawn bench's hand-off floor counts round trips/s beside threads/s), else the bench's.
std::string variant_unit(const experiments::BenchResult& result,
                         const experiments::Variant& variant);

/// A ratio for people, only from a clear verdict: "3.85x faster", "1.82x slower"; "no clear
/// difference (spread 309%)" when the verdict is unclear; "not run"; "baseline" for a variant
/// others are compared with, "reference, not compared" for one measured beside them that
/// nothing is compared with (a floor).
std::string bench_ratio_text(const experiments::BenchResult& result,
                             const experiments::Variant& variant);

/// The counters of a bench's variants as a table shows them: the ones some variant counted (a
/// column each, with how), and one line per reason for those none could count ("counters not
/// supported here: l1d_read_misses, dtlb_read_misses (no hardware counters in this VM)").
struct CounterColumns {
  std::vector<std::string> shown;
  std::map<std::string, std::string> how;  ///< shown name -> how it was counted
  std::vector<std::string> unsupported_lines;
};
CounterColumns counter_columns(const experiments::BenchResult& result);
/// `variant`'s counter of that name; nullptr when it has none.
const experiments::Counter* counter_named(const experiments::Variant& variant,
                                          const std::string& name);

/// "measured on a busy machine: busy: ..." or "machine: quiet machine (KVM guest)"; "" when the
/// machine was not watched.
std::string bench_machine_line(const experiments::BenchResult& result);
/// The same line for a machine state watched around any measurement.
std::string machine_state_line(const MachineState& state);

/// "3 planned runs + 4 added (2.1 s) to settle unclear verdicts; time budget reached ..."; ""
/// when no rounds were run.
std::string bench_rounds_text(const experiments::BenchResult& result);

}  // namespace threadmap::render
