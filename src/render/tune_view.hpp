// What `threadmap tune` prints: the table (candidate, how it was applied, runs, median, its 95%
// interval, the verdicts against no placement and against the best, with the test named), the
// conclusion, the lines that reproduce the winner; and the same as JSON (threadmap.tune/1).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "src/tune/tune_run.hpp"

namespace threadmap::render {

/// The terminal report. `reproduce` is the winner's lines (tune::reproduce_lines), "" for none.
std::string tune_text(const tune::TuneResult& result, const std::string& reproduce);

/// {"schema":"threadmap.tune/1","best","leader","conclusion","metric",...,"candidates":[{"name",
///  "how","median","samples","verdict_vs_os","verdict_vs_best","machine_state",...}],"output"}.
nlohmann::json tune_json(const tune::TuneResult& result, const std::string& reproduce);

/// One verdict as JSON: {"word","ratio","decided_by","p_value","intervals_overlap",
/// "unpaired_clear","paired":{...},"basis","reason","n_candidate","n_baseline"}.
nlohmann::json verdict_json(const Verdict& verdict);

}  // namespace threadmap::render
