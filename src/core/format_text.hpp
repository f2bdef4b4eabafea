// printf-style formatting into a std::string for core's messages: core is folded into
// libthreadmap.so and does not link fmt, which every layer above it uses instead.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>

namespace threadmap {

/// vsnprintf into a std::string; messages are short (512 bytes, the rest cut).
inline std::string format_text(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
inline std::string format_text(const char* pattern, ...) {
  char buf[512];
  va_list args;
  va_start(args, pattern);
  std::vsnprintf(buf, sizeof buf, pattern, args);
  va_end(args);
  return buf;
}

}  // namespace threadmap
