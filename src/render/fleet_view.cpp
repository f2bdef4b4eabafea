#include "src/render/fleet_view.hpp"

#include <fmt/format.h>

#include "src/render/html_page.hpp"
#include "src/render/report_html_util.hpp"
#include "src/render/safe_text.hpp"
#include "src/render/text_table.hpp"

namespace threadmap::render {
namespace {

std::string majority_line(const fleet::FleetGroup& g) {
  std::string out;
  for (const char* item : {"CPUs", "SMT", "NUMA nodes", "L3 domains", "kernel"}) {
    auto it = g.majority.find(item);
    if (it != g.majority.end())
      out += (out.empty() ? "" : "; ") + std::string(item) + " " + it->second;
  }
  return out;
}

// Per group: the measured metrics too noisy to compare, and how many hosts had no conditions.
std::string noise_lines(const fleet::FleetGroup& g) {
  std::string out;
  for (const fleet::MetricNoise& m : g.noise)
    if (m.too_noisy)
      out += fmt::format(
          "  {}: {} too noisy on this group to compare (its {} hosts vary {:.2f}x "
          "typically, more than {:.2f}x)\n",
          terminal_safe(g.key), m.metric, m.hosts, m.spread, m.limit);
  if (g.conditions_unknown > 0)
    out += fmt::format(
        "  {}: {} host(s) carry no stability or machine state (older reports): "
        "their measurements are compared as they are\n",
        terminal_safe(g.key), g.conditions_unknown);
  return out;
}

}  // namespace

std::string fleet_text(const fleet::FleetReport& f) {
  std::string out = fmt::format(
      "fleet {}: {} host(s) in {} group(s) (same CPU model and package "
      "count), {} outlier(s)\n",
      terminal_safe(f.dir), f.hosts, f.groups.size(), f.outliers.size());
  TextTable table({"group", "hosts>", "outliers>", "what most hosts have"});
  for (const fleet::FleetGroup& g : f.groups)
    table.add_row({terminal_safe(g.key), std::to_string(g.hosts.size()), std::to_string(g.outliers),
                   terminal_safe(majority_line(g))});
  out += table.str();
  if (!f.outliers.empty()) out += "\noutliers:\n";
  for (const fleet::Outlier& o : f.outliers) {
    out += fmt::format("  {} ({})\n", terminal_safe(o.host), terminal_safe(o.group));
    for (const fleet::Difference& d : o.differences)
      out += fmt::format("    [{}] {}\n", d.kind, terminal_safe(d.text));
  }
  if (!f.set_aside.empty())
    out += "\nnot compared (measured under unfair conditions; their configuration still is):\n";
  for (const fleet::SetAside& a : f.set_aside)
    out += fmt::format("  [{}] {}\n", a.reason, terminal_safe(a.text));
  std::string noise;
  for (const fleet::FleetGroup& g : f.groups) noise += noise_lines(g);
  if (!noise.empty())
    out +=
        "\nnoise (measured metrics are off only beyond what the group's own hosts vary):\n" + noise;
  for (const std::string& u : f.unreadable) out += "  [unreadable] " + terminal_safe(u) + "\n";
  return out;
}

nlohmann::json fleet_json(const fleet::FleetReport& f) {
  nlohmann::json groups = nlohmann::json::array();
  for (const fleet::FleetGroup& g : f.groups) {
    nlohmann::json noise = nlohmann::json::array();
    for (const fleet::MetricNoise& m : g.noise)
      noise.push_back({{"metric", m.metric},
                       {"hosts", m.hosts},
                       {"spread_ratio", m.spread},
                       {"floor_ratio", m.floor},
                       {"too_noisy", m.too_noisy},
                       {"basis", m.basis}});
    groups.push_back({{"group", g.key},
                      {"hosts", g.hosts},
                      {"outliers", g.outliers},
                      {"majority", g.majority},
                      {"noise", noise},
                      {"conditions_unknown", g.conditions_unknown}});
  }
  nlohmann::json aside = nlohmann::json::array();
  for (const fleet::SetAside& a : f.set_aside)
    aside.push_back({{"host", a.host},
                     {"file", a.file},
                     {"group", a.group},
                     {"reason", a.reason},
                     {"text", a.text}});
  nlohmann::json outliers = nlohmann::json::array();
  for (const fleet::Outlier& o : f.outliers) {
    nlohmann::json diffs = nlohmann::json::array();
    for (const fleet::Difference& d : o.differences)
      diffs.push_back({{"kind", d.kind}, {"text", d.text}});
    outliers.push_back(
        {{"host", o.host}, {"file", o.file}, {"group", o.group}, {"differences", diffs}});
  }
  return {{"schema", "threadmap.fleet/1"},
          {"dir", f.dir},
          {"hosts", f.hosts},
          {"groups", groups},
          {"outliers", outliers},
          {"set_aside", aside},
          {"unreadable", f.unreadable}};
}

std::string fleet_html(const fleet::FleetReport& f, const html::PageMeta& meta) {
  using html::escape;
  html::PageHead head;
  head.title = "threadmap fleet: " + f.dir;
  head.meta = meta;
  head.extras.push_back(
      fmt::format("{} host(s), {} group(s) by CPU model and package count, {} outlier(s).", f.hosts,
                  f.groups.size(), f.outliers.size()));
  std::vector<html::NavLink> nav{{"groups", "Groups"}};
  std::string body =
      "<section id=\"groups\"><h2>Groups</h2>\n<div class=\"scroll\"><table class=\"stack\">\n"
      "<thead><tr><th>group</th><th class=\"num\">hosts</th><th class=\"num\">outliers</th>"
      "<th>what most hosts have</th></tr></thead>\n<tbody>\n";
  for (const fleet::FleetGroup& g : f.groups)
    body += std::string("<tr") + (g.outliers ? " class=\"bad\"" : "") +
            "><td data-label=\"group\">" + escape(g.key) +
            "</td><td class=\"num\" data-label=\"hosts\">" + std::to_string(g.hosts.size()) +
            "</td><td class=\"num\" data-label=\"outliers\">" + std::to_string(g.outliers) +
            "</td><td data-label=\"what most hosts have\">" + escape(majority_line(g)) +
            "</td></tr>\n";
  body += "</tbody></table></div>\n</section>\n";
  if (!f.outliers.empty()) {
    nav.push_back({"outliers", "Outliers"});
    body +=
        "<section id=\"outliers\"><h2>Outliers</h2>\n<div class=\"scroll\"><table "
        "class=\"stack\">\n<thead><tr><th>host</th><th>group</th><th>differences</th></tr>"
        "</thead>\n<tbody>\n";
    for (const fleet::Outlier& o : f.outliers) {
      std::string diffs;
      for (const fleet::Difference& d : o.differences)
        diffs += "<code>" + escape(d.kind) + "</code> " + escape(d.text) + "<br/>";
      body += "<tr class=\"bad\"><td data-label=\"host\">" + escape(o.host) +
              "</td><td data-label=\"group\">" + escape(o.group) +
              "</td><td data-label=\"differences\">" + diffs + "</td></tr>\n";
    }
    body += "</tbody></table></div>\n</section>\n";
  }
  if (!f.set_aside.empty()) {
    nav.push_back({"not-compared", "Not compared"});
    body +=
        "<section id=\"not-compared\"><h2>Not compared</h2>\n<p>Measured under unfair "
        "conditions (latency that did not hold still, a busy machine); their configuration is "
        "still compared.</p>\n<ul>\n";
    for (const fleet::SetAside& a : f.set_aside) body += "<li>" + escape(a.text) + "</li>\n";
    body += "</ul>\n</section>\n";
  }
  std::string noise;
  for (const fleet::FleetGroup& g : f.groups) noise += noise_lines(g);
  if (!noise.empty()) {
    nav.push_back({"noise", "Noise"});
    body += "<section id=\"noise\"><h2>Noise</h2>\n<pre>" + escape(noise) + "</pre>\n</section>\n";
  }
  if (!f.unreadable.empty()) {
    nav.push_back({"unreadable", "Unreadable"});
    body += "<section id=\"unreadable\"><h2>Unreadable</h2>\n<ul>\n";
    for (const std::string& u : f.unreadable) body += "<li>" + escape(u) + "</li>\n";
    body += "</ul>\n</section>\n";
  }
  return html::page(head, nav, body);
}

}  // namespace threadmap::render
