// The values an option takes from a fixed list, declared once where the option is declared:
// CLI11 shows a validator's description after the value's type in --help
// ("TEXT:{compact,scatter,round-robin}"), and the man pages and shell completion read the same
// description back (manual.cpp), so the three cannot list different values.
#include <string>
#include <vector>

#include "src/cli/command.hpp"

namespace threadmap::cli {

CLI::Validator fixed_values(const std::vector<std::string>& values, bool comma_list) {
  std::string description = "{";
  for (const std::string& v : values) description += (description.size() > 1 ? "," : "") + v;
  description += comma_list ? "},..." : "}";
  // Accepts every value: the library parses it and says what is wrong in its own words (and
  // "plan:FILE" or a regular expression metric are not in any list).
  return CLI::Validator([](std::string&) { return std::string(); }, description, "fixed-values");
}

}  // namespace threadmap::cli
