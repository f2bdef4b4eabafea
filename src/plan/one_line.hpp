// Error messages quote user input (keys, names, CPU expressions); JSON strings may hold control
// characters, and an error must stay one line. This escapes them.
#pragma once

#include <cstdio>
#include <string>

#include "threadmap/result.hpp"

namespace threadmap::plan {

/// `text` with control characters written as \n, \t or \xHH.
inline std::string one_line(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

/// The same error with its message made one line.
inline Error one_line(const Error& error) { return Error{error.code, one_line(error.message)}; }

}  // namespace threadmap::plan
