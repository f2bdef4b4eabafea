// Text that came from outside (thread names, file contents) made safe to show: a thread can name
// itself with escape sequences that would repaint the user's terminal, or with bytes that are
// not UTF-8 (which JSON cannot carry).
#pragma once

#include <string>

namespace threadmap::render {

/// `text` for a terminal: control characters (C0, DEL, C1 code points) become "\xNN" (the byte
/// values), invalid UTF-8 bytes likewise; printable UTF-8 is kept.
std::string terminal_safe(const std::string& text);

/// `text` as valid UTF-8 for JSON: invalid bytes become U+FFFD. Control characters are kept
/// (JSON escapes them).
std::string valid_utf8(const std::string& text);

}  // namespace threadmap::render
