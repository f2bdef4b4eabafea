// Prose for a terminal, filled to a width: the explanations under a table read in one glance
// instead of as one 200-column line a terminal folds at random.
#pragma once

#include <cstddef>
#include <string>

namespace threadmap::render {

/// Each line of `text` longer than `width` columns is broken at spaces into lines of at most
/// `width` (a word longer than that stands alone); continuation lines start with `indent`
/// spaces. Lines within the width, and line ends, are kept as they are.
std::string fill_lines(const std::string& text, std::size_t width = 100, std::size_t indent = 2);

}  // namespace threadmap::render
