#include "src/render/html_page.hpp"

#include "src/os/host.hpp"
#include "src/os/monotonic_clock.hpp"
#include "src/render/report_html_util.hpp"
#include "threadmap/version.hpp"

namespace threadmap::render::html {
namespace {

// One style sheet for every page. Phone rules (the media query): a table marked "stack" turns
// each row into a small card of "header: value" lines, so its last column (a bench's verdict)
// is on screen at 400 px without scrolling sideways; code wraps inside its box instead of
// running past the screen's edge (a wrapped command still pastes as one line).
const char* kStyle = R"(
:root { color-scheme: light; }
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0;
       color: #1d2330; background: #f6f7f9; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
header { background: #1d2330; color: #fff; padding: 1.2rem 1rem; }
header h1 { margin: 0 auto; max-width: 60rem; font-size: 1.5rem; }
header p { margin: .3rem auto 0; max-width: 60rem; color: #c9cfdb; font-size: .9rem; }
header code { color: #fff; }
section { background: #fff; border-radius: 8px; padding: .6rem 1rem 1rem; margin: 1rem 0;
          box-shadow: 0 1px 3px rgba(0,0,0,.08); }
h2 { font-size: 1.2rem; border-bottom: 2px solid #e3e6eb; padding-bottom: .3rem; }
p, li, h1, h2, h3, summary, header code { overflow-wrap: anywhere; } /* long paths wrap */
h3 { font-size: 1rem; margin-bottom: .2rem; }
nav ul { columns: 2 12rem; padding-left: 1.2rem; margin: 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: .5rem 0; font-size: .9rem; }
th, td { border-bottom: 1px solid #e3e6eb; padding: .25rem .6rem; text-align: left;
         vertical-align: top; overflow-wrap: anywhere; }
th { background: #f0f2f5; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
pre { background: #f0f2f5; padding: .6rem; overflow-x: auto; font-size: .85rem;
      white-space: pre-wrap; overflow-wrap: anywhere; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
img, svg { max-width: 100%; height: auto; }
svg.bars text, svg.timeline text { font: 14px system-ui, sans-serif; fill: #1d2330; }
svg.bars, svg.timeline { display: block; margin: .4rem 0; }
.unavailable { background: #fff4e5; border-left: 4px solid #e69a28; padding: .4rem .6rem; }
.note { color: #5a6270; font-size: .9rem; }
.glance li { margin: .2rem 0; }
.warn { color: #9a3412; font-weight: 600; }
.cmd { margin: .2rem 0 .6rem; }
.cmd span { font-size: .8rem; color: #5a6270; }
.loaded { border-left: 4px solid #5b84b1; padding-left: .6rem; }
tr.bad td { background: #fde8e6; }
td.verdict { font-weight: 600; }
.legend span { display: inline-block; margin-right: 1rem; font-size: .9rem; }
.legend i { display: inline-block; width: .9rem; height: .9rem; margin-right: .3rem;
            vertical-align: middle; }
@media (max-width: 40rem) {
  main { padding: .5rem; }
  section { padding: .5rem .7rem .8rem; }
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; }
  table.stack thead { display: none; }
  table.stack tr { border-bottom: 2px solid #e3e6eb; padding: .3rem 0; }
  table.stack td { border: 0; padding: .05rem .2rem; text-align: left; white-space: normal;
                   overflow-wrap: anywhere; }
  table.stack td::before { content: attr(data-label) ": "; color: #5a6270; font-weight: 400; }
  table.stack td:first-child { font-weight: 600; }
  table.stack td:first-child::before { content: ""; }
}
)";

}  // namespace

PageMeta page_meta_here(const std::string& command_line) {
  return {os::utc_timestamp(), command_line, std::string("threadmap ") + THREADMAP_VERSION_STRING,
          os::host_name()};
}

std::string provenance_line(const PageMeta& m) {
  std::string out = m.generated_utc.empty() ? "made" : "generated " + m.generated_utc;
  if (!m.host.empty()) out += " on " + m.host;
  if (!m.version.empty()) out += " by " + m.version;
  return out;
}

std::string page(const PageHead& head, const std::vector<NavLink>& nav, const std::string& body) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
      "<title>" +
      escape(head.title) + "</title>\n<style>" + kStyle +
      "</style>\n</head>\n<body>\n<header>\n<h1>" + escape(head.title) + "</h1>\n";
  out += "<p>" + escape(provenance_line(head.meta)) + "</p>\n";
  if (!head.meta.command_line.empty())
    out += "<p>command: <code>" + escape(head.meta.command_line) + "</code></p>\n";
  for (const std::string& line : head.extras) out += "<p>" + escape(line) + "</p>\n";
  out += "</header>\n<main>\n";
  if (!nav.empty()) {
    out += "<nav><ul>";
    for (const NavLink& l : nav)
      out += "<li><a href=\"#" + escape(l.id) + "\">" + escape(l.title) + "</a></li>";
    out += "</ul></nav>\n";
  }
  return out + body + "</main>\n</body>\n</html>\n";
}

}  // namespace threadmap::render::html
