// Small pieces the HTML report is built from: escaping, base64 data: URIs, tables and inline
// SVG bar charts. Everything produced here is self-contained (no URL outside the page) and
// well-formed (every element closed, every text escaped).
#pragma once

#include <string>
#include <vector>

#include "src/experiments/bench_result.hpp"

namespace threadmap::render::html {

/// Text made safe for element content and attribute values (& < > " ').
std::string escape(const std::string& text);

/// Standard base64 (RFC 4648, with padding).
std::string base64(const std::string& bytes);

/// A data: URI for embedding, e.g. data_uri("image/png", bytes).
std::string data_uri(const std::string& mime, const std::string& bytes);

/// <table> with a header row; cells are escaped. Wrapped in a horizontally scrollable div so
/// wide tables stay readable on a phone. Columns listed in `numeric` are right-aligned.
std::string table(const std::vector<std::string>& headers,
                  const std::vector<std::vector<std::string>>& rows,
                  const std::vector<std::size_t>& numeric = {});

/// The same table, readable on a phone without scrolling sideways: below 40rem of width each
/// row becomes a card of "header: value" lines (the page's CSS, html_page.cpp), so its last
/// columns stay on screen. Column `verdict` (when < headers.size()) is marked class "verdict".
std::string stacked_table(const std::vector<std::string>& headers,
                          const std::vector<std::vector<std::string>>& rows,
                          const std::vector<std::size_t>& numeric = {},
                          std::size_t verdict = static_cast<std::size_t>(-1));

/// An inline SVG of horizontal bars, one per available variant of `bench` (median, with a
/// min-max whisker), labelled with the value in the bench's unit. Empty when nothing ran.
std::string bench_bars_svg(const experiments::BenchResult& bench);

/// <p class="unavailable">: a part that could not be produced, and why.
std::string unavailable(const std::string& what, const std::string& reason);

}  // namespace threadmap::render::html
