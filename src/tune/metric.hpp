// What `threadmap tune` compares: the program's wall time (default), its CPU time (user +
// system, from the kernel's rusage), or a number it prints, found by a regular expression with
// one capture group (the last match in the run's output counts: benchmarks print their result
// at the end).
#pragma once

#include <optional>
#include <regex>
#include <string>

#include "src/os/measured_run.hpp"
#include "threadmap/result.hpp"

namespace threadmap::tune {

struct Metric {
  enum class Kind { wall, cpu, regex };
  Kind kind = Kind::wall;
  std::string pattern;            ///< with Kind::regex, as given
  bool higher_is_better = false;  ///< times: false; a printed rate: --higher
  std::regex compiled;            ///< with Kind::regex
  std::string unit() const;       ///< "s" for times, "" for a printed number
  std::string describe() const;   ///< "wall time (s, lower is better)"
};

/// Parses `text`: "wall", "cpu", or a regular expression (ECMAScript) with exactly one capture
/// group. `higher`/`lower` give a printed number's direction (times are always lower-is-better;
/// higher with a time is refused). Fault::input otherwise, about the member at fault
/// (TuneOptions' names: "metric", "higher", "lower"; a regex without a direction is about
/// "higher", the switch that would give one).
Result<Metric> parse_metric(const std::string& text, bool higher, bool lower);

/// The metrics parse_metric knows by name ("wall", "cpu"); anything else is a regular expression.
const std::vector<std::string>& named_metrics();

/// The metric's value for one run; empty when the regex did not match (or its capture is not
/// a number).
std::optional<double> metric_value(const Metric& metric, const os::MeasuredRun& run);

/// The last `lines` lines of `text` (for "the regex never matched; the program's last lines").
std::string last_lines(const std::string& text, int lines);

/// `text` on one line: its lines joined by " | " (an error is one line, whatever the program
/// printed), cut to `max_chars` with "..." in front when longer.
std::string one_line(const std::string& text, std::size_t max_chars = 300);

}  // namespace threadmap::tune
