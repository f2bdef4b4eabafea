#include "src/render/job_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "src/render/html_page.hpp"
#include "src/render/report_html_util.hpp"
#include "src/render/safe_text.hpp"
#include "src/render/text_table.hpp"

namespace threadmap::render {
namespace {

using cluster::JobFinding;
using cluster::JobHost;
using cluster::JobReport;

std::vector<int> ranks_of(const JobHost& h) {
  std::vector<int> ranks;
  for (const auto& [rank, share] : h.shares) ranks.push_back(rank);
  return ranks;
}

// CPUs worth a row: allowed ones and any a thread was seen on.
std::vector<int> cpus_of(const JobHost& h) {
  CpuSet cpus = h.cpus;
  for (const auto& [key, seconds] : h.seconds) cpus.add(key.first);
  return cpus.to_vector();
}

double seconds_at(const JobHost& h, int cpu, int rank) {
  auto it = h.seconds.find({cpu, rank});
  return it == h.seconds.end() ? 0.0 : it->second;
}

std::string cell(double seconds) { return seconds > 0 ? fmt::format("{:.2f}", seconds) : "."; }

std::vector<const JobFinding*> findings_for(const JobReport& job, const std::string& host) {
  std::vector<const JobFinding*> out;
  for (const JobFinding& f : job.findings)
    if (f.host == host) out.push_back(&f);
  return out;
}

// Start-up windows: the launcher's and the MPI library's doing, shown apart from findings.
std::string startup_text(const JobHost& h) {
  std::string out;
  for (const auto& [rank, w] : h.startup) {
    if (out.empty())
      out += "start-up (launcher and MPI_Init binding; not findings, --strict ignores them):\n";
    out += fmt::format("  rank {}: {:.2f}-{:.2f} s until {}", rank, w.start_s, w.end_s, w.until);
    out += w.outside_s > 0 ? fmt::format(
                                 "; threads on CPUs {} outside its share for {:.2f} s "
                                 "(thread-seconds, sampled)\n",
                                 w.outside_cpus.to_list(), w.outside_s)
                           : std::string("\n");
  }
  if (!h.unsampled.empty())
    out += fmt::format(
        "(rank(s) {} ended before their watch's first sample: where their threads ran is "
        "unknown, and their CPUs are not judged)\n",
        fmt::join(h.unsampled, ","));
  if (!h.activity_unknown.empty())
    out += fmt::format(
        "(rank(s) {} recorded no CPU time per span: all their threads count as runnable)\n",
        fmt::join(h.activity_unknown, ","));
  return out;
}

}  // namespace

namespace {

// The GPUs of the ranks run with --gpus: one line each ("rank 0: GPU 0 (0000:34:00.0) CPUs ...").
std::string rank_gpus_text(const JobHost& h) {
  std::string out;
  for (const auto& [rank, gpus] : h.gpus)
    for (const cluster::RecordGpu& g : gpus)
      out += fmt::format("rank {}: GPU {} ({}{}), node {}, local CPUs {}\n", rank, g.index,
                         g.bus_id, g.model.empty() ? "" : " " + terminal_safe(g.model),
                         g.numa_node >= 0 ? std::to_string(g.numa_node) : "none", g.cpus.to_list());
  return out;
}

// {node: bytes} of a rank with GPUs whose watch read its pages; {} otherwise.
nlohmann::json page_bytes_json(const JobHost& h, int rank) {
  nlohmann::json out = nlohmann::json::object();
  auto it = h.page_bytes.find(rank);
  if (it != h.page_bytes.end())
    for (const auto& [node, bytes] : it->second) out[std::to_string(node)] = bytes;
  return out;
}

nlohmann::json rank_gpus_json(const JobHost& h, int rank) {
  nlohmann::json out = nlohmann::json::array();
  auto it = h.gpus.find(rank);
  if (it == h.gpus.end()) return out;
  for (const cluster::RecordGpu& g : it->second)
    out.push_back({{"pci_bus_id", g.bus_id},
                   {"index", g.index},
                   {"model", g.model},
                   {"numa_node", g.numa_node >= 0 ? nlohmann::json(g.numa_node) : nlohmann::json()},
                   {"cpus", g.cpus.to_list()}});
  return out;
}

}  // namespace

std::string job_text(const JobReport& job) {
  std::string out = fmt::format("job {}: {} rank record(s), {} host(s)\n", terminal_safe(job.dir),
                                job.records, job.hosts.size());
  for (const JobFinding* f : findings_for(job, ""))
    out += fmt::format("  [{}] {}\n", f->id, terminal_safe(f->text));
  for (const std::string& f : job.ignored)
    out += fmt::format("  (skipped {}: a job document, not a rank record)\n", terminal_safe(f));
  for (const JobHost& h : job.hosts) {
    std::vector<int> ranks = ranks_of(h);
    out += fmt::format(
        "\nhost {}: {} rank(s) of {}; thread-seconds per CPU and rank (sampled: a "
        "thread counts on the CPU it last ran on until the next sample)\n",
        terminal_safe(h.host), ranks.size(), h.ranks);
    std::vector<std::string> headers{"cpu>"};
    for (int r : ranks) headers.push_back(fmt::format("rank {}>", r));
    headers.push_back("in share of");
    TextTable table(headers);
    for (int cpu : cpus_of(h)) {
      std::vector<std::string> row{std::to_string(cpu)};
      std::string owners;
      for (int r : ranks) {
        row.push_back(cell(seconds_at(h, cpu, r)));
        if (h.shares.at(r).contains(cpu)) owners += (owners.empty() ? "" : ",") + std::to_string(r);
      }
      row.push_back(owners.empty() ? "-" : "rank " + owners);
      table.add_row(std::move(row));
    }
    out += table.str();
    out += rank_gpus_text(h);
    out += startup_text(h);
    std::vector<const JobFinding*> found = findings_for(job, h.host);
    if (found.empty()) {
      out += "findings: none (every rank's threads stayed in its own share)\n";
    } else {
      out += fmt::format("findings ({}):\n", found.size());
      for (const JobFinding* f : found)
        out += fmt::format("  [{}] {}\n", f->id, terminal_safe(f->text));
    }
  }
  return out;
}

nlohmann::json job_json(const JobReport& job) {
  nlohmann::json doc;
  doc["schema"] = "threadmap.job/1";
  doc["dir"] = job.dir;
  doc["records"] = job.records;
  nlohmann::json hosts = nlohmann::json::array();
  for (const JobHost& h : job.hosts) {
    nlohmann::json host;
    host["host"] = h.host;
    host["ranks"] = h.ranks;
    host["ranks_seen"] = h.ranks_seen;
    host["cpus"] = h.cpus.to_list();
    nlohmann::json per_rank = nlohmann::json::array();
    for (int r : ranks_of(h)) {
      nlohmann::json cpus = nlohmann::json::object();
      for (int cpu : cpus_of(h))
        if (double s = seconds_at(h, cpu, r); s > 0) cpus[std::to_string(cpu)] = s;
      per_rank.push_back({{"rank", r},
                          {"share", h.shares.at(r).to_list()},
                          {"threads", h.threads.count(r) ? h.threads.at(r) : 0},
                          {"migrations", h.migrations.count(r) ? h.migrations.at(r) : 0},
                          {"seconds_on_cpu", cpus},
                          {"gpus", rank_gpus_json(h, r)},
                          {"page_bytes", page_bytes_json(h, r)}});
    }
    host["rank_details"] = per_rank;
    nlohmann::json startup = nlohmann::json::array();
    for (const auto& [rank, w] : h.startup)
      startup.push_back({{"rank", rank},
                         {"start_s", w.start_s},
                         {"end_s", w.end_s},
                         {"until", w.until},
                         {"outside_share_s", w.outside_s},
                         {"outside_cpus", w.outside_cpus.to_list()}});
    host["startup"] = startup;
    host["activity_unknown_ranks"] = h.activity_unknown;
    host["unsampled_ranks"] = h.unsampled;
    hosts.push_back(host);
  }
  doc["hosts"] = hosts;
  nlohmann::json findings = nlohmann::json::array();
  for (const JobFinding& f : job.findings)
    findings.push_back({{"id", f.id},
                        {"host", f.host},
                        {"rank", f.rank},
                        {"seconds", f.seconds},
                        {"text", f.text}});
  doc["findings"] = findings;
  doc["ignored_files"] = job.ignored;
  return doc;
}

std::string rank_shares_text(const std::vector<cluster::RankShare>& shares) {
  TextTable table({"rank>", "CPUs", "count>", "memory nodes", "split by"});
  for (size_t k = 0; k < shares.size(); ++k) {
    std::string nodes;
    for (int n : shares[k].memory_nodes) nodes += (nodes.empty() ? "" : ",") + std::to_string(n);
    table.add_row({std::to_string(k), shares[k].cpus.to_list(),
                   std::to_string(shares[k].cpus.count()), nodes.empty() ? "unknown" : nodes,
                   shares[k].how});
  }
  return table.str();
}

nlohmann::json rank_shares_json(const std::vector<cluster::RankShare>& shares) {
  nlohmann::json ranks = nlohmann::json::array();
  for (size_t k = 0; k < shares.size(); ++k)
    ranks.push_back({{"rank", k},
                     {"cpus", shares[k].cpus.to_list()},
                     {"memory_nodes", shares[k].memory_nodes},
                     {"how", shares[k].how}});
  return {{"schema", "threadmap.rank-shares/1"}, {"ranks", ranks}};
}

namespace {

// The colours of the page: time inside the rank's share blue, outside it red (the grid and the
// timeline agree); a thread runnable but starved of CPU is a half-height amber bar, one asleep
// a thin grey line.
constexpr const char* kInShare = "40,110,220";
constexpr const char* kOutside = "220,50,40";
constexpr const char* kStarved = "#e09a1a";
constexpr const char* kAsleep = "#8a8f98";
// More threads than this in one rank are summarised, not drawn (a row each would make a page
// no one scrolls through; the grid above still counts all of them).
constexpr std::size_t kMostThreadsDrawn = 48;

std::string findings_section(const JobReport& job) {
  using html::escape;
  std::string out = "<section id=\"findings\"><h2>Findings</h2>\n";
  if (job.findings.empty())
    return out + "<p>None: every rank's threads stayed in its own share.</p>\n</section>\n";
  out += "<ul class=\"glance\">\n";
  for (const JobFinding& f : job.findings)
    out += "<li><code>" + escape(f.id) + "</code> " +
           (f.host.empty() ? "" : escape(f.host) + ": ") + escape(f.text) + "</li>\n";
  return out + "</ul>\n</section>\n";
}

std::string startup_section(const JobReport& job) {
  using html::escape;
  std::string startup;
  for (const JobHost& h : job.hosts)
    if (std::string t = startup_text(h); !t.empty()) startup += escape(h.host) + ":\n" + escape(t);
  if (startup.empty()) return "";
  return "<section id=\"startup\"><h2>Start-up</h2>\n<p>The launcher's and the MPI library's "
         "binding while the ranks started: shown apart, not findings.</p>\n<pre>" +
         startup + "</pre>\n</section>\n";
}

std::string cpu_grid(const JobHost& h) {
  std::vector<int> ranks = ranks_of(h);
  double most = 0;
  for (const auto& [key, s] : h.seconds) most = std::max(most, s);
  std::string out =
      "<h3>Where each rank's threads ran</h3>\n<p class=\"note\">Thread-seconds per CPU and "
      "rank; blue inside the rank's share, red outside it, darker = longer.</p>\n"
      "<div class=\"scroll\"><table>\n<thead><tr><th class=\"num\">CPU</th>";
  for (int r : ranks) out += "<th class=\"num\">rank " + std::to_string(r) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (int cpu : cpus_of(h)) {
    out += "<tr><th class=\"num\">" + std::to_string(cpu) + "</th>";
    for (int r : ranks) {
      const double s = seconds_at(h, cpu, r);
      const bool own = h.shares.at(r).contains(cpu);
      const double alpha = most > 0 ? 0.15 + 0.85 * s / most : 0;
      std::string style = s > 0 ? fmt::format(" style=\"background:rgba({},{:.2f})\"",
                                              own ? kInShare : kOutside, alpha)
                                : "";
      out += "<td class=\"num\"" + style + " title=\"" +
             (own ? "in its share" : "outside its share") + "\">" + cell(s) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

// A time axis under the rows: a line and ticks at round steps (1, 2 or 5 times a power of ten)
// so that 5 to 10 of them fall in [t0, t1], each labelled; the last label stays inside.
std::string time_axis_svg(double t0, double t1, int width, int axis_y) {
  const double span = std::max(t1 - t0, 1e-3);
  auto x_of = [&](double t) { return (t - t0) / span * width; };
  double step = std::pow(10.0, std::floor(std::log10(span / 5)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (span / (step * m) <= 10) {
      step *= m;
      break;
    }
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  std::string svg = fmt::format("<line x1=\"0\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#222\"/>\n",
                                width, axis_y, axis_y);
  // Ticks by index, so that the steps do not drift and the first one is 0, not -0.
  for (long k = static_cast<long>(std::ceil(t0 / step - 1e-9)); k * step <= t1 + 1e-9; ++k) {
    const double t = k == 0 ? 0.0 : static_cast<double>(k) * step;
    const double x = x_of(t);
    const char* anchor = x < 20 ? "start" : x > width - 20 ? "end" : "middle";
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#222\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"{4}\">{5:.{6}f} s</text>\n",
        x, axis_y, axis_y + 4, axis_y + 17, anchor, t, decimals);
  }
  return svg;
}

// One rank's threads over time, as the watch timeline draws them (thin = waiting, full =
// running), coloured by whether the CPU was in the rank's share. Inline SVG, one row per thread
// with its name above the bar, so it stays legible when a phone scales it down.
std::string rank_timeline_svg(const JobHost& h, int rank, double t0, double t1) {
  using html::escape;
  const auto it = h.timelines.find(rank);
  if (it == h.timelines.end() || it->second.empty())
    return "<p class=\"note\">rank " + std::to_string(rank) +
           ": no watch of its threads (see the findings).</p>\n";
  const std::vector<cluster::RecordThread>& threads = it->second;
  const CpuSet& share = h.shares.at(rank);
  const cluster::JobRules rules;
  const std::size_t shown = std::min(threads.size(), kMostThreadsDrawn);
  const int row = 30, bar = 12, width = 480, axis = 22;
  const int height = static_cast<int>(shown) * row + axis;
  const double span = std::max(t1 - t0, 1e-3);
  auto x_of = [&](double t) { return (t - t0) / span * width; };
  std::string svg = fmt::format(
      "<svg class=\"timeline\" viewBox=\"0 0 {} {}\" width=\"{}\" role=\"img\" "
      "aria-label=\"rank {}: its threads over time, running or waiting\">\n",
      width, height, width, rank);
  for (std::size_t i = 0; i < shown; ++i) {
    const cluster::RecordThread& t = threads[i];
    const int y = static_cast<int>(i) * row;
    svg += fmt::format("<text x=\"0\" y=\"{}\">{}</text>\n", y + 13,
                       escape(fmt::format("{} {}", t.tid, t.name).substr(0, 40)));
    for (const cluster::RecordSpan& s : t.spans) {
      const double x0 = x_of(s.start_s);
      const double w = std::max(x_of(s.end_s) - x0, 1.0);
      const bool running = cluster::runnable(s, rules);
      const bool starved = cluster::starved(s, rules);
      const bool own = share.contains(s.cpu);
      const double hgt = running ? bar : starved ? bar / 2.0 : 3;
      const std::string fill = running   ? fmt::format("rgb({})", own ? kInShare : kOutside)
                               : starved ? kStarved
                                         : kAsleep;
      const std::string what =
          running   ? "running"
          : starved ? fmt::format("runnable but starved: waited {:.2f} s for a CPU, ran {:.2f} s",
                                  s.wait_s, std::max(s.cpu_s, 0.0))
                    : "asleep";
      svg += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" "
          "fill=\"{}\"><title>CPU {}, {:.2f}-{:.2f} s, {}{}</title></rect>\n",
          x0, y + 16 + (bar - hgt) / 2, w, hgt, fill, s.cpu, s.start_s, s.end_s, escape(what),
          own ? "" : ", outside the rank's share");
    }
  }
  const int axis_y = static_cast<int>(shown) * row + 2;
  svg += time_axis_svg(t0, t1, width, axis_y);
  svg += "</svg>\n";
  std::string out = "<h4>rank " + std::to_string(rank) + " (share " + escape(share.to_list()) +
                    ", " + std::to_string(threads.size()) + " thread(s))</h4>\n" + svg;
  if (threads.size() > shown)
    out +=
        fmt::format("<p class=\"note\">First {} of {} threads drawn.</p>\n", shown, threads.size());
  return out;
}

std::string host_section(const JobHost& h, std::size_t index) {
  using html::escape;
  std::string out =
      fmt::format("<section id=\"host-{}\"><h2>Host {}</h2>\n", index, escape(h.host));
  out += fmt::format("<p>{} of {} rank(s) recorded; CPUs {}.</p>\n", h.ranks_seen.size(), h.ranks,
                     escape(h.cpus.to_list()));
  out += cpu_grid(h);
  // One time axis for every rank of the host: each rank's watch counts from its own start, and
  // the ranks of a job start together, so their rows line up.
  double t0 = 1e300, t1 = -1e300;
  for (const auto& [rank, threads] : h.timelines)
    for (const cluster::RecordThread& t : threads)
      for (const cluster::RecordSpan& s : t.spans) {
        t0 = std::min(t0, s.start_s);
        t1 = std::max(t1, s.end_s);
      }
  out +=
      "<h3>Timeline per rank</h3>\n<p class=\"legend\">"
      "<span><i style=\"background:rgb(" +
      std::string(kInShare) +
      ")\"></i>running in its share</span><span><i style=\"background:rgb(" + kOutside +
      ")\"></i>running outside it</span><span><i style=\"background:" + kStarved +
      ";height:.45rem\"></i>runnable, starved of CPU</span><span><i style=\"background:" + kAsleep +
      ";height:.25rem\"></i>asleep</span></p>\n<p class=\"note\">Each rank's threads "
      "over the time its watch sampled (seconds from the start of its watch). Running: the "
      "thread used at least " +
      fmt::format("{:.0f}%", 100 * cluster::JobRules{}.runnable_share) +
      " of a span's time on its CPU (the rule of the findings). Starved: it used less, but "
      "waited on a run queue for a CPU at least as long (the kernel's schedstat); asleep: "
      "neither. Records without the wait show every thread that did not run as asleep.</p>\n";
  if (t1 < t0) return out + "<p class=\"note\">No rank has a watch.</p>\n</section>\n";
  for (int rank : ranks_of(h)) out += rank_timeline_svg(h, rank, t0, t1);
  return out + "</section>\n";
}

}  // namespace

std::string job_html(const JobReport& job, const html::PageMeta& meta) {
  html::PageHead head;
  head.title = "threadmap job: " + job.dir;
  head.meta = meta;
  head.extras.push_back(fmt::format(
      "{} rank record(s), {} host(s), {} finding(s). Seconds are thread-seconds, sampled: a "
      "thread counts on the CPU it last ran on until the next sample.",
      job.records, job.hosts.size(), job.findings.size()));
  for (const std::string& f : job.ignored)
    head.extras.push_back("skipped " + f + ": a job document, not a rank record");
  std::vector<html::NavLink> nav{{"findings", "Findings"}};
  const std::string startup = startup_section(job);
  if (!startup.empty()) nav.push_back({"startup", "Start-up"});
  std::string body = findings_section(job) + startup;
  for (std::size_t i = 0; i < job.hosts.size(); ++i) {
    nav.push_back({"host-" + std::to_string(i), "Host " + job.hosts[i].host});
    body += host_section(job.hosts[i], i);
  }
  return html::page(head, nav, body);
}

}  // namespace threadmap::render
