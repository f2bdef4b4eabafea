// The one page shell every threadmap HTML page uses (report, job, fleet): the document head,
// the style sheet, the header that says when, where, by which version and by which command the
// page was made, the section links and the main column. Keeping it in one place is what makes
// the three pages look alike and stay readable on a phone (400 px) together.
#pragma once

#include <string>
#include <vector>

namespace threadmap::render::html {

/// Where a page comes from, shown in its header. An empty field is left out of the line.
struct PageMeta {
  std::string generated_utc;  ///< ISO 8601 UTC ("2026-11-26T21:30:00Z")
  std::string command_line;   ///< the threadmap command that made the page, shell-quoted
  std::string version;        ///< "threadmap 0.9.0"
  std::string host;           ///< the host the page was made on
};

/// This run's provenance: now (UTC), this host's name, this build's version, and the given
/// command line.
PageMeta page_meta_here(const std::string& command_line);

/// One entry of the page's table of contents: a section id and its heading.
struct NavLink {
  std::string id;
  std::string title;
};

/// The page's title and what its header says besides the provenance line.
struct PageHead {
  std::string title;                ///< <title> and <h1> ("threadmap report: AMD EPYC 7763")
  PageMeta meta;                    ///< the provenance line
  std::vector<std::string> extras;  ///< more header lines (quick mode, duration, ...), escaped
};

/// The header's provenance line: "generated DATE on HOST by VERSION: COMMAND"; the parts that
/// are empty are left out.
std::string provenance_line(const PageMeta& meta);

/// A complete, self-contained page: `body` (already HTML: <section>s) inside the shared shell,
/// with a nav list of `nav` (none when empty). Everything in `head` is escaped here.
std::string page(const PageHead& head, const std::vector<NavLink>& nav, const std::string& body);

}  // namespace threadmap::render::html
