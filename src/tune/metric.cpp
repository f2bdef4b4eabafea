#include "src/tune/metric.hpp"

#include <cstdlib>
#include <vector>

namespace threadmap::tune {

std::string Metric::unit() const { return kind == Kind::regex ? "" : "s"; }

std::string Metric::describe() const {
  switch (kind) {
    case Kind::wall:
      return "wall time (s, lower is better; measured here, spawn to exit)";
    case Kind::cpu:
      return "CPU time (s, user + system, lower is better; the kernel's rusage)";
    case Kind::regex:
      break;
  }
  return "the number the program prints matching '" + pattern + "' (" +
         (higher_is_better ? "higher" : "lower") + " is better)";
}

const std::vector<std::string>& named_metrics() {
  static const std::vector<std::string> names = {"wall", "cpu"};
  return names;
}

Result<Metric> parse_metric(const std::string& text, bool higher, bool lower) {
  Metric m;
  // A direction given that cannot work is about that switch; none given, the metric needs one.
  if (higher && lower)
    return Error::bad_input("lower", "a number cannot be better both higher and lower");
  if (text == "wall" || text == "cpu") {
    if (higher)
      return Error::bad_input("higher",
                              "higher is better: " + text + " time is always lower-is-better");
    m.kind = text == "wall" ? Metric::Kind::wall : Metric::Kind::cpu;
    return m;
  }
  if (text.empty())
    return Error::bad_input("metric", "empty metric (wall, cpu or a regular expression)");
  m.kind = Metric::Kind::regex;
  m.pattern = text;
  m.higher_is_better = higher;
  try {
    m.compiled = std::regex(text, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return Error::bad_input("metric", "'" + text + "' is not a regular expression: " + e.what());
  }
  if (m.compiled.mark_count() != 1)
    return Error::bad_input("metric", "'" + text +
                                          "' must have exactly one capture group (it has " +
                                          std::to_string(m.compiled.mark_count()) +
                                          "), around the number, e.g. 'ops/s=([0-9.]+)'");
  if (!higher && !lower)
    // The fix is a direction: the error is about the switch that gives one.
    return Error::bad_input("higher",
                            "'" + text + "': say whether a higher or a lower number is better");
  return m;
}

std::optional<double> metric_value(const Metric& metric, const os::MeasuredRun& run) {
  if (metric.kind == Metric::Kind::wall) return run.wall_s;
  if (metric.kind == Metric::Kind::cpu) return run.cpu_s;
  std::optional<double> last;
  for (auto it = std::sregex_iterator(run.output.begin(), run.output.end(), metric.compiled);
       it != std::sregex_iterator(); ++it) {
    std::string captured = (*it)[1].str();
    char* end = nullptr;
    double v = std::strtod(captured.c_str(), &end);
    if (!captured.empty() && end && *end == '\0') last = v;
  }
  return last;
}

std::string last_lines(const std::string& text, int lines) {
  std::vector<std::string> all;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    all.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  std::string out;
  std::size_t first = all.size() > static_cast<std::size_t>(lines) ? all.size() - lines : 0;
  for (std::size_t i = first; i < all.size(); ++i) out += (i > first ? "\n" : "") + all[i];
  return out;
}

std::string one_line(const std::string& text, std::size_t max_chars) {
  std::string out;
  for (char ch : text) {
    if (ch == '\n')
      out += " | ";
    else if (ch != '\r')
      out += ch;
  }
  if (out.size() > max_chars) out = "..." + out.substr(out.size() - max_chars);
  return out;
}

}  // namespace threadmap::tune
