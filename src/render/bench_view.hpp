// Rendering a seed experiment's result: the side-by-side terminal table and the JSON document
// (schema "threadmap.bench/1", every field documented in docs/bench-and-report.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

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

/// A ratio for people, only from a clear verdict: "baseline", "3.85x faster", "1.82x slower";
/// "no clear difference (spread 309%)" when the verdict is unclear; "not run".
std::string bench_ratio_text(const experiments::Variant& variant);

/// "measured on a busy machine: busy: ..." or "machine: quiet machine (KVM guest)"; "" when the
/// machine was not watched.
std::string bench_machine_line(const experiments::BenchResult& result);

/// "3 planned runs + 4 added (2.1 s) to settle unclear verdicts; time budget reached ..."; ""
/// when no rounds were run.
std::string bench_rounds_text(const experiments::BenchResult& result);

}  // namespace threadmap::render
