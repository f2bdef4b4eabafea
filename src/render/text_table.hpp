// A plain-text table with aligned columns, for terminal output. Numbers right-aligned.
#pragma once

#include <string>
#include <vector>

namespace threadmap::render {

class TextTable {
 public:
  /// Columns by header; a header ending in '>' is right-aligned (the '>' is not shown).
  explicit TextTable(std::vector<std::string> headers);
  void add_row(std::vector<std::string> cells);
  /// The table with a header line and a rule, each line ending in '\n'.
  std::string str() const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::string> headers_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

/// Display width of a UTF-8 string (code points; ANSI escape sequences count as zero).
size_t display_width(const std::string& s);

}  // namespace threadmap::render
