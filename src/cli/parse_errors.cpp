// CLI11's parse errors in our words: one line that names the option and the value, with no
// library phrasing ("Value abc not in range 1 to 1000000" for a word that is not a number,
// ranges printed as 0.100000). Unknown shapes pass through unchanged.
#include <regex>
#include <string>

#include "src/cli/command.hpp"

namespace threadmap::cli {
namespace {

// "0.100000" -> "0.1", "50.000000" -> "50".
std::string trimmed_number(std::string n) {
  if (n.find('.') == std::string::npos) return n;
  while (!n.empty() && n.back() == '0') n.pop_back();
  if (!n.empty() && n.back() == '.') n.pop_back();
  return n;
}

bool is_number(const std::string& text) {
  static const std::regex number(R"([-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)");
  return std::regex_match(text, number);
}

}  // namespace

CLI::Validator whole_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty() || text.size() > 20 ||
            text.find_first_not_of("0123456789") != std::string::npos)
          return "'" + text + "' is not a whole number >= 0";
        return "";
      },
      "UINT");
}

std::string parse_error_text(const std::string& raw) {
  std::smatch m;
  static const std::regex range(R"(^(\S+): Value (.*) not in range (\S+) to (\S+)$)");
  static const std::regex choice(R"(^(\S+): (.*) not in \{(.*)\}$)");
  static const std::regex unexpected(
      R"(^The following arguments? (?:was|were) not expected: (.*)$)");
  static const std::regex required(R"(^(\S+) is required$)");
  static const std::regex convert(R"(^Could not convert: (\S+) = (.*)$)");
  static const std::regex validator(R"(^(--?[A-Za-z][\w-]*|[a-z]+): (.*)$)");
  if (std::regex_match(raw, m, range)) {
    const std::string opt = m[1], value = m[2];
    const std::string bounds = trimmed_number(m[3]) + " to " + trimmed_number(m[4]);
    if (!is_number(value))
      return "bad " + opt + ": '" + value + "' is not a number (" + bounds + ")";
    return "bad " + opt + ": " + value + " is out of range (" + bounds + ")";
  }
  if (std::regex_match(raw, m, choice)) {
    std::string list = m[3];
    for (size_t at = list.find(','); at != std::string::npos; at = list.find(',', at + 2))
      list.replace(at, 1, ", ");
    return "bad " + std::string(m[1]) + ": '" + std::string(m[2]) + "' is not one of " + list;
  }
  if (std::regex_match(raw, m, unexpected))
    return "unexpected argument " + std::string(m[1]) +
           " (a command to run goes after --; options take one value each)";
  if (std::regex_match(raw, m, required)) {
    const std::string what = m[1];
    if (what == "command") return "missing the command to run (after --)";
    return "missing " + what;
  }
  if (std::regex_match(raw, m, convert))
    return "bad " + std::string(m[1]) + ": '" + std::string(m[2]) + "' is not a valid value";
  // Our own validators' "NAME: MESSAGE": the same shape as a library error about that flag.
  if (std::regex_match(raw, m, validator))
    return "bad " + std::string(m[1]) + ": " + std::string(m[2]);
  return raw;
}

}  // namespace threadmap::cli
