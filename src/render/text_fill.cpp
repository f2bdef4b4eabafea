#include "src/render/text_fill.hpp"

namespace threadmap::render {
namespace {

// One line (no '\n') filled. Breaks go at runs of spaces; the runs that stay inside a line keep
// their width (columns aligned with spaces stay aligned), and a line's own indent is kept.
std::string fill_one(const std::string& line, std::size_t width, std::size_t indent) {
  if (line.size() <= width) return line;
  std::size_t start = line.find_first_not_of(' ');
  if (start == std::string::npos) return line;
  const std::string pad(indent + start, ' ');
  std::string out, current = line.substr(0, start);
  bool first_word = true;
  std::size_t gap_from = start;
  while (start != std::string::npos) {
    std::size_t end = line.find(' ', start);
    if (end == std::string::npos) end = line.size();
    const std::string gap = line.substr(gap_from, start - gap_from);
    const std::string word = line.substr(start, end - start);
    if (!first_word && current.size() + gap.size() + word.size() > width) {
      out += current + "\n";
      current = pad + word;
    } else {
      current += gap + word;
    }
    first_word = false;
    gap_from = end;
    start = line.find_first_not_of(' ', end);
  }
  return out + current;
}

}  // namespace

std::string fill_lines(const std::string& text, std::size_t width, std::size_t indent) {
  std::string out;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find('\n', at);
    const bool last = end == std::string::npos;
    if (last) end = text.size();
    out += fill_one(text.substr(at, end - at), width, indent);
    if (last) break;
    out += "\n";
    at = end + 1;
  }
  return out;
}

}  // namespace threadmap::render
