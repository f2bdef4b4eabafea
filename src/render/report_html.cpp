// The report page: skeleton, style, at-a-glance, topology and the latency sections. The advice
// and benchmark sections are in report_html_advice.cpp.
#include "src/render/report_html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "src/latency/compare.hpp"
#include "src/latency/matrix_summary.hpp"
#include "src/render/bench_view.hpp"
#include "src/render/device_view.hpp"
#include "src/render/html_page.hpp"
#include "src/render/latency_image.hpp"
#include "src/render/latency_text.hpp"
#include "src/render/report_html_util.hpp"
#include "src/render/topology_view.hpp"

namespace threadmap::render {
namespace {

using report::MachineReport;

std::string ns_text(double v) { return std::isfinite(v) ? fmt::format("{:.1f} ns", v) : "-"; }

std::string notes_html(const std::vector<std::string>& notes) {
  std::string out;
  for (const std::string& n : notes) out += "<p class=\"note\">" + html::escape(n) + "</p>\n";
  return out;
}

// The one line at the top of the page: was the machine quiet, and is it a virtual machine.
std::string machine_line(const MachineReport& r) {
  if (!r.machine_state) return "Machine state: unknown (not watched: no topology).";
  const MachineState& m = *r.machine_state;
  std::string line = m.busy()
                         ? "Measured on a busy machine: " +
                               (m.summary.starts_with("busy: ") ? m.summary.substr(6) : m.summary)
                         : "Machine state: " + m.summary;
  if (m.guest)
    line += m.hypervisor.empty() ? "; virtual machine" : "; virtual machine (" + m.hypervisor + ")";
  return line + ".";
}

// What the page says about a matrix it did not measure: "Loaded matrix: AMD EPYC 7763, from
// FILE". Its sentences are kept under this label, apart from this machine's own.
std::string loaded_label(const report::LatencyPart& lat) {
  return "Loaded matrix: " + lat.loaded_machine + ", from " + lat.matrix.source +
         (lat.describes_this_machine ? ""
                                     : " (another machine: not combined with this one's "
                                       "topology, advice or benchmarks)");
}

// Text filled for a terminal (fill_lines: continuation lines start with two spaces) as its
// paragraphs, each one line again.
std::vector<std::string> paragraphs_of(const std::string& filled) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < filled.size()) {
    std::size_t end = filled.find('\n', at);
    if (end == std::string::npos) end = filled.size();
    const std::string line = filled.substr(at, end - at);
    at = end + 1;
    if (line.rfind("  ", 0) == 0 && !out.empty())
      out.back() += " " + line.substr(line.find_first_not_of(' '));
    else if (!line.empty())
      out.push_back(line);
  }
  return out;
}

// The latency sentences "At a glance" shows: the range, the stability warning, the numbering.
std::vector<std::string> latency_glance(const MachineReport& r) {
  std::vector<std::string> items;
  const latency::PairSpread s = latency::pair_spread(r.latency.matrix);
  const std::string from = r.latency.measurement ? "measured here" : "loaded";
  // One pair, or pairs that all read the same, have one value: no "106.1 ns to 106.1 ns".
  if (s.pairs == 1)
    items.push_back(fmt::format("Core-to-core latency (one way, {}): {} for its one CPU pair.",
                                from, ns_text(s.min_ns)));
  else if (ns_text(s.min_ns) == ns_text(s.max_ns))
    items.push_back(fmt::format("Core-to-core latency (one way, {}): {} for all {} CPU pairs.",
                                from, ns_text(s.min_ns), s.pairs));
  else
    items.push_back(
        fmt::format("Core-to-core latency (one way, {}): {} to {}, median {} over {} CPU pairs.",
                    from, ns_text(s.min_ns), ns_text(s.max_ns), ns_text(s.median_ns), s.pairs));
  // The stability finding, when there is one, is already the first item: the warning is said
  // once at a glance, not again in other words.
  if (r.latency.measurement && r.latency.stability_finding.empty()) {
    // A number shown at a glance must carry its warning there too, not only further down.
    const latency::PassAgreement a = latency::pass_agreement(*r.latency.measurement);
    if (a.unstable + a.multimodal > 0)
      items.push_back(fmt::format(
          "WARNING: latency unstable here: {} of {} pair(s) disagree between passes, {} show "
          "separate modes (largest between-pass spread {:.0f}%); treat these numbers as one "
          "moment of this machine, see the latency section.",
          a.unstable, a.pairs, a.multimodal, a.worst_spread_pct));
  }
  if (r.latency.numbering.lies) {
    const auto& w = r.latency.numbering.worst[0];
    items.push_back(fmt::format(
        "Numbering lies: CPU {}'s numeric neighbour {} is {:.1f}x farther than its nearest "
        "partner.",
        w.cpu, w.next_cpu, w.cost_ratio));
  }
  return items;
}

// Whether a parenthetical holds statistics (a test, a p-value, an interval) rather than words a
// reader needs to follow the sentence.
bool is_statistics(const std::string& inner) {
  for (const char* mark : {"p=", "p <", "p<", "rank test", "Wilcoxon", "Mann-Whitney", "sign test",
                           "interval", "median of", "spreads up to", "runs, a clear"})
    if (inner.find(mark) != std::string::npos) return true;
  return false;
}

// A glance item in plain words with its statistics one click away: each parenthetical that
// holds statistics moves from the sentence into a <details> under it.
std::string glance_item(const std::string& text) {
  std::string plain, stats;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '(') {
      plain += text[i++];
      continue;
    }
    std::size_t depth = 0, j = i;
    for (; j < text.size(); ++j) {
      depth += text[j] == '(';
      depth -= text[j] == ')';
      if (depth == 0) break;
    }
    const std::string inner = text.substr(i + 1, j - i - 1);
    if (j < text.size() && is_statistics(inner)) {
      stats += (stats.empty() ? "" : "; ") + inner;
      while (!plain.empty() && plain.back() == ' ') plain.pop_back();
    } else {
      plain += text.substr(i, j - i + 1);
    }
    i = j + 1;
  }
  std::string out = "<li>" + html::escape(plain);
  if (!stats.empty())
    out += "<details><summary>statistics</summary>" + html::escape(stats) + "</details>";
  return out + "</li>\n";
}

std::string glance_list(const std::vector<std::string>& items) {
  std::string out = "<ul class=\"glance\">\n";
  for (const std::string& i : items) out += glance_item(i);
  return out + "</ul>\n";
}

std::string glance_section(const MachineReport& r) {
  const bool loaded = r.latency.status.available && !r.latency.measurement;
  std::vector<std::string> items, about_loaded;
  std::vector<std::string>& stability = loaded ? about_loaded : items;
  if (!r.latency.stability_finding.empty()) {
    std::string finding = "WARNING: " + r.latency.stability_finding + ".";
    stability.push_back(finding);
  }
  if (!r.advice.placement_summary.empty()) items.push_back(r.advice.placement_summary + ".");
  if (r.topology) items.push_back(topology_summary(*r.topology));
  if (r.latency.status.available) {
    for (std::string& i : latency_glance(r)) (loaded ? about_loaded : items).push_back(i);
  } else {
    items.push_back("Latency: unavailable (" + r.latency.status.reason + ").");
  }
  for (const auto& rec : r.advice.recommendations)
    items.push_back("For " + rec.title + ": " +
                    (rec.cpus.empty() ? std::string("no placement needed") : "CPUs " + rec.cpus) +
                    " (" + rec.why + ").");
  if (!r.advice.smt_layout.empty()) {
    std::string smt = r.advice.smt_layout + ".";
    smt[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(smt[0])));
    items.push_back(smt);
  }
  std::string out = "<section id=\"glance\"><h2>At a glance</h2>\n";
  // Bound to a corner of the machine: every number below is about that corner.
  if (r.binding && !r.binding->finding.empty())
    out += "<p class=\"warn\" id=\"binding\">" +
           html::escape("This report's process: " + r.binding->finding + ".") + "</p>\n";
  out += "<p class=\"" + std::string(r.machine_state && r.machine_state->busy() ? "warn" : "note") +
         "\">" + html::escape(machine_line(r)) + "</p>\n";
  out += glance_list(items);
  // A matrix this report did not measure is a separate story, told under its own label.
  if (loaded)
    out += "<div class=\"loaded\" id=\"loaded-matrix\"><h3>" +
           html::escape(loaded_label(r.latency)) + "</h3>\n" + glance_list(about_loaded) +
           "</div>\n";
  return out + "</section>\n";
}

std::string topology_section(const MachineReport& r) {
  std::string out = "<section id=\"topology\"><h2>Topology</h2>\n";
  if (!r.topology)
    return out + html::unavailable("Topology", r.topology_status.reason) + "</section>\n";
  const Topology& t = *r.topology;
  const TopologyCounts c = t.counts();
  // The one-line summary is at a glance (said once); here the counts, the devices, the tree.
  // hwloc shows a die level only where the machine has one: no "dies 0" column elsewhere.
  std::vector<std::string> heads = {"packages",  "NUMA nodes", "L3 caches",
                                    "L2 caches", "cores",      "CPUs (PUs)"};
  std::vector<std::string> cells = {std::to_string(c.packages),  std::to_string(c.numa_nodes),
                                    std::to_string(c.l3_caches), std::to_string(c.l2_caches),
                                    std::to_string(c.cores),     std::to_string(c.pus)};
  if (c.dies > 0) {
    heads.insert(heads.begin() + 2, "dies");
    cells.insert(cells.begin() + 2, std::to_string(c.dies));
  }
  std::vector<std::size_t> numeric;
  for (std::size_t i = 0; i < heads.size(); ++i) numeric.push_back(i);
  out += html::table(heads, {cells}, numeric);
  out += "<p>CPUs this process may use: <code>" + html::escape(r.usable_cpus) +
         "</code> (cgroup cpuset and affinity). Source: hwloc, this machine.</p>\n";
  out += device_table_html(r.devices);
  out +=
      "<details><summary>Topology tree (as <code>threadmap topo</code> prints "
      "it)</summary>\n<pre>" +
      html::escape(topology_tree(t)) + "</pre></details>\n";
  return out + "</section>\n";
}

std::string latency_section(const MachineReport& r, const ReportImages& images) {
  const auto& lat = r.latency;
  std::string out = "<section id=\"latency\"><h2>Core-to-core latency</h2>\n";
  if (!lat.status.available)
    return out + html::unavailable("The latency matrix", lat.status.reason) + "</section>\n";
  // The full label is in the page's header and at a glance: here which matrix this is.
  if (!lat.measurement)
    out += std::string(
               "<p class=\"loaded\"><strong>The loaded matrix (named at the top of the "
               "page)") +
           (lat.describes_this_machine ? "" : ", of another machine") + ".</strong></p>\n";
  // The terminal's lines, each its own paragraph (the provenance, the between-pass spread, a
  // warning): joined into one <p> they ran together as one sentence.
  for (const std::string& para :
       paragraphs_of(latency_provenance(lat.matrix, lat.measurement ? &*lat.measurement : nullptr)))
    out += (para.rfind("WARNING", 0) == 0 ? "<p class=\"warn\">" : "<p>") + html::escape(para) +
           "</p>\n";
  out += "<p class=\"note\">" + html::escape(lat.how) + "</p>\n";
  if (!images.heatmap_png.empty()) {
    out +=
        "<img alt=\"latency heatmap: one-way ns between CPU pairs, rows and columns in "
        "topology order\" src=\"" +
        html::data_uri("image/png", images.heatmap_png) + "\"/>\n";
  } else {
    out += html::unavailable("The heatmap image", images.heatmap_reason);
  }
  const latency::PairSpread s = latency::pair_spread(lat.matrix);
  // Stacks on a phone: four columns with a long header were cut at 400 px.
  out += html::stacked_table(
      {"CPU pairs", "min", "median", "max"},
      {{std::to_string(s.pairs), ns_text(s.min_ns), ns_text(s.median_ns), ns_text(s.max_ns)}},
      {0, 1, 2, 3});
  if (lat.matrix.size() <= 32) {
    std::vector<std::string> headers{"CPU"};
    for (int c : lat.matrix.cpus) headers.push_back(std::to_string(c));
    std::vector<std::vector<std::string>> rows;
    std::vector<std::size_t> numeric;
    for (std::size_t i = 0; i < lat.matrix.size(); ++i) {
      std::vector<std::string> row{std::to_string(lat.matrix.cpus[i])};
      for (std::size_t j = 0; j < lat.matrix.size(); ++j)
        row.push_back(i == j ? "-"
                      : std::isfinite(lat.matrix.at(i, j))
                          ? fmt::format("{:.1f}", lat.matrix.at(i, j))
                          : "n/m");
      rows.push_back(row);
      numeric.push_back(i + 1);
    }
    // Small matrices are shown open; larger ones are one click away (the heatmap says it all).
    out += std::string(lat.matrix.size() <= 8 ? "<details open=\"open\">" : "<details>") +
           "<summary>The matrix (one-way ns, row CPU to column CPU; n/m = no value)</summary>\n" +
           html::table(headers, rows, numeric) + "</details>\n";
  } else {
    out += "<p class=\"note\">The full matrix (" + std::to_string(lat.matrix.size()) +
           " CPUs) is in report.json.</p>\n";
  }
  out += notes_html(lat.notes);
  return out + "</section>\n";
}

std::string groups_text(const std::vector<CpuSet>& groups) {
  std::string out;
  for (std::size_t g = 0; g < groups.size() && g < 12; ++g)
    out += (g ? " " : "") + ("[" + groups[g].to_list() + "]");
  if (groups.size() > 12) out += fmt::format(" ... ({} more)", groups.size() - 12);
  return out;
}

std::string domains_section(const MachineReport& r) {
  const auto& lat = r.latency;
  std::string out = "<section id=\"domains\"><h2>Latency domains vs hwloc</h2>\n";
  if (!lat.status.available)
    return out + html::unavailable("Latency domains", lat.status.reason) + "</section>\n";
  out +=
      "<p>CPUs grouped by measured latency alone (hierarchical clustering, levels cut where "
      "the latency jumps), next to what hwloc reports.</p>\n";
  std::vector<std::vector<std::string>> rows;
  for (std::size_t l = 0; l < lat.domains.levels.size(); ++l) {
    const double cut = l < lat.domains.level_cut_ns.size() ? lat.domains.level_cut_ns[l] : 0;
    rows.push_back({lat.domains.level_names[l], std::to_string(lat.domains.levels[l].size()),
                    std::isfinite(cut) && cut > 0 ? fmt::format("{:.1f} ns", cut) : "-",
                    groups_text(lat.domains.levels[l])});
  }
  out += html::table({"latency level", "groups", "joined below", "groups (CPUs)"}, rows, {1, 2});
  if (lat.comparison) {
    std::vector<std::vector<std::string>> cmp;
    for (const auto& c : lat.comparison->lines)
      cmp.push_back(
          {c.latency_level, c.hwloc_level, latency::relation_name(c.relation), c.sentence});
    out += "<h3>Agreement with hwloc</h3>\n" +
           html::table({"latency level", "hwloc level", "relation", "finding"}, cmp);
  } else {
    out +=
        "<p class=\"note\">Not compared with hwloc: the matrix does not describe this "
        "machine.</p>\n";
  }
  return out + "</section>\n";
}

std::string numbering_section(const MachineReport& r) {
  const auto& lat = r.latency;
  std::string out = "<section id=\"numbering\"><h2>The numbering lies</h2>\n";
  if (!lat.status.available)
    return out + html::unavailable("The numbering table", lat.status.reason) + "</section>\n";
  out +=
      "<p>Choosing a partner CPU by number (n, n+1) versus by measurement: each CPU's nearest "
      "partners and what its numeric neighbour costs instead (worst first).</p>\n";
  if (!lat.measurement)
    // The label is said in full at a glance and in the latency section; here which CPUs these are.
    out += std::string("<p class=\"loaded\">These are the CPUs of the loaded matrix (") +
           (lat.describes_this_machine ? "this machine's" : "another machine's") +
           ", see Core-to-core latency).</p>\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& w : lat.numbering.worst) {
    std::string nearest;
    for (std::size_t i = 0; i < w.nearest.size() && i < 6; ++i)
      nearest += (i ? "," : "") + std::to_string(w.nearest[i]);
    if (w.nearest.size() > 6) nearest += fmt::format(" +{}", w.nearest.size() - 6);
    rows.push_back({std::to_string(w.cpu), nearest, ns_text(w.nearest_ns),
                    w.next_cpu >= 0 ? std::to_string(w.next_cpu) : "-", ns_text(w.next_ns),
                    fmt::format("{:.2f}x", w.cost_ratio)});
  }
  out += html::table({"CPU", "nearest partners", "nearest", "next by number", "latency to it",
                      "cost of numbering"},
                     rows, {0, 2, 3, 4, 5});
  if (lat.matrix.size() <= 2)
    out +=
        "<p class=\"note\">With two CPUs there is only one possible partner: numbering "
        "cannot mislead here.</p>\n";
  return out + "</section>\n";
}

}  // namespace

ReportImages draw_report_images(const MachineReport& report) {
  ReportImages images;
  const auto& lat = report.latency;
  if (!lat.status.available) {
    images.heatmap_reason = lat.status.reason;
    return images;
  }
  HeatmapLabels labels;
  labels.title = (lat.matrix.cpu_model.empty() ? lat.matrix.source : lat.matrix.cpu_model) +
                 ": one-way core-to-core latency (" + std::to_string(lat.matrix.size()) + " CPUs)";
  labels.subtitle = "ns; rows/columns in topology order; latency domains outlined";
  labels.domains = lat.domains.domains;
  auto drawn = heatmap_image(ImageFormat::png, lat.matrix, lat.order, labels);
  if (!drawn) {
    images.heatmap_reason = drawn.error().message;
    return images;
  }
  images.heatmap_png = std::move(*drawn);
  return images;
}

std::string report_html(const MachineReport& r, const ReportImages& images) {
  const std::string model = r.topology && !r.topology->cpu_model().empty()
                                ? r.topology->cpu_model()
                                : std::string("this machine");
  html::PageHead head;
  head.title = "threadmap report: " + model;
  head.meta = {r.generated_utc, r.command_line, r.threadmap_version, r.host};
  head.extras.push_back(
      fmt::format("took {:.0f} s", r.total_seconds) +
      (r.budget_s > 0 ? fmt::format(" of a {:.0f} s budget", r.budget_s) : std::string()) +
      (r.quick ? " (quick mode: fewer latency pairs, shorter benchmarks)" : ""));
  if (r.latency.status.available && !r.latency.measurement)
    head.extras.push_back(loaded_label(r.latency));
  const std::vector<html::NavLink> nav{{"glance", "At a glance"},
                                       {"topology", "Topology"},
                                       {"latency", "Core-to-core latency"},
                                       {"domains", "Domains vs hwloc"},
                                       {"numbering", "The numbering lies"},
                                       {"recommendations", "Recommendations"},
                                       {"smt", "SMT guidance"},
                                       {"thread-cache", "Thread cache"},
                                       {"benchmarks", "Key benchmarks"},
                                       {"method", "How this was measured"}};
  std::string body = glance_section(r);
  body += topology_section(r);
  body += latency_section(r, images);
  body += domains_section(r);
  body += numbering_section(r);
  body += detail::advice_and_bench_sections(r);
  return html::page(head, nav, body);
}

}  // namespace threadmap::render
