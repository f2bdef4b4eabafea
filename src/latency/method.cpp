// Method names as users type them on the command line and as JSON stores them.
#include "src/latency/measurement.hpp"

namespace threadmap::latency {

const char* method_name(Method method) { return method == Method::cas ? "cas" : "two-lines"; }

Result<Method> parse_method(const std::string& text) {
  if (text == "cas") return Method::cas;
  if (text == "two-lines") return Method::two_lines;
  return Error::invalid("unknown latency method '" + text + "' (expected cas or two-lines)");
}

}  // namespace threadmap::latency
