#include "src/render/safe_text.hpp"

#include <cstdint>
#include <cstdio>

namespace threadmap::render {
namespace {

// Length of the valid UTF-8 sequence at text[i] (1-4), or 0 when the bytes there are not one.
// `code` receives the code point.
std::size_t utf8_sequence(const std::string& text, std::size_t i, std::uint32_t& code) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char b = byte(i);
  std::size_t len = b < 0x80           ? 1
                    : (b >> 5) == 0x6  ? 2
                    : (b >> 4) == 0xE  ? 3
                    : (b >> 3) == 0x1E ? 4
                                       : 0;
  if (len == 0 || i + len > text.size()) return 0;
  code = len == 1 ? b : b & (0x7F >> len);
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not valid UTF-8.
  static const std::uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kMin[len] || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) return 0;
  return len;
}

void append_hex(std::string& out, unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", b);
  out += buf;
}

}  // namespace

std::string terminal_safe(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    std::uint32_t code = 0;
    std::size_t len = utf8_sequence(text, i, code);
    bool control = code < 0x20 || code == 0x7F || (code >= 0x80 && code < 0xA0);
    if (len == 0 || control) {
      for (std::size_t k = 0; k < (len == 0 ? 1 : len); ++k)
        append_hex(out, static_cast<unsigned char>(text[i + k]));
      i += len == 0 ? 1 : len;
      continue;
    }
    out.append(text, i, len);
    i += len;
  }
  return out;
}

std::string valid_utf8(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    std::uint32_t code = 0;
    std::size_t len = utf8_sequence(text, i, code);
    if (len == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
      continue;
    }
    out.append(text, i, len);
    i += len;
  }
  return out;
}

}  // namespace threadmap::render
