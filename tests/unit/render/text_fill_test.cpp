// Filled prose: no line over the width, nothing lost, short lines and tables' lines untouched.
#include "src/render/text_fill.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace threadmap::render {
namespace {

std::string words_only(const std::string& s) {
  std::istringstream in(s);
  std::string w, out;
  while (in >> w) out += w + " ";
  return out;
}

TEST(FillLines, LongLinesBreakAtSpacesWithinTheWidthAndKeepEveryWord) {
  std::string long_line;
  for (int i = 0; i < 60; ++i) long_line += "word" + std::to_string(i) + " ";
  long_line.pop_back();
  const std::string text = "short line\n" + long_line + "\n";
  const std::string filled = fill_lines(text, 40, 2);
  std::istringstream in(filled);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    EXPECT_LE(line.size(), 40u) << line;
  }
  EXPECT_GT(lines, 3);
  EXPECT_EQ(words_only(filled), words_only(text));
  EXPECT_EQ(filled.substr(0, 11), "short line\n");
  EXPECT_EQ(filled.back(), '\n');
  // Continuation lines are indented.
  EXPECT_NE(filled.find("\n  word"), std::string::npos) << filled;
}

TEST(FillLines, ShortTextIsUnchangedAndAnOverlongWordStandsAlone) {
  EXPECT_EQ(fill_lines("a b\nc\n", 10, 2), "a b\nc\n");
  EXPECT_EQ(fill_lines("", 10, 2), "");
  EXPECT_EQ(fill_lines("aa 0123456789abcdef bb", 10, 2), "aa\n  0123456789abcdef\n  bb");
  // A line's own indent is kept, and its continuation goes deeper.
  EXPECT_EQ(fill_lines("  one two three", 9, 2), "  one two\n    three");
  // Aligning runs of spaces inside a line stay as they are.
  EXPECT_EQ(fill_lines("cache      32 groups of CPUs", 20, 2), "cache      32 groups\n  of CPUs");
}

}  // namespace
}  // namespace threadmap::render
