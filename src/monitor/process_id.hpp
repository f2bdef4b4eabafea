// A process or thread id as someone typed it, with the one rule `ps`, `pin` and `watch` apply:
// a positive integer that fits a pid_t (digits only: "-1" and "0x10" are refused, not read as
// something else).
#pragma once

#include <sys/types.h>

#include <string>

#include "threadmap/result.hpp"

namespace threadmap::monitor {

/// `text` as a process id. EINVAL "'TEXT' is not a process id: expected a positive integer"
/// otherwise (the work's fault until the caller says the value was given: as_bad_input).
inline Result<pid_t> parse_process_id(const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 10 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoll(text) <= 0 || std::stoll(text) > 0x7fffffff)
    return Error::invalid("'" + text + "' is not a process id: expected a positive integer");
  return static_cast<pid_t>(std::stoll(text));
}

}  // namespace threadmap::monitor
