// Parsing a JSON document a user gave us, with an error in our words: "not valid JSON at line
// L, column C" (or "a number is too large"), never nlohmann's exception text. Header-only: the
// modules that read JSON files (plan, apply, latency, cluster, fleet) link nlohmann-json; the
// core library itself does not.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "threadmap/result.hpp"

namespace threadmap {

/// The parsed document, or Error::invalid("not valid JSON at line L, column C") for a syntax
/// error (position of the first offending character, both 1-based), "not valid JSON: it ends
/// too early (at line L, column C)" for a truncated document, "not valid JSON: a number
/// is too large" for a number beyond a double, "not valid JSON: empty" for no text at all.
inline Result<nlohmann::json> parse_json_text(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return Error::invalid("not valid JSON: empty");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    if (offset > text.size()) offset = text.size();
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    const std::string where = "line " + std::to_string(line) + ", column " + std::to_string(column);
    if (offset >= text.size())
      return Error::invalid("not valid JSON: it ends too early (at " + where + ")");
    return Error::invalid("not valid JSON at " + where);
  } catch (const nlohmann::json::exception&) {  // out_of_range.406: number overflow
    return Error::invalid("not valid JSON: a number is too large");
  }
}

}  // namespace threadmap
