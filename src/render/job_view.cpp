#include "src/render/job_view.hpp"

#include <fmt/format.h>

#include <algorithm>

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
  if (!h.activity_unknown.empty())
    out += fmt::format(
        "(rank(s) {} recorded no CPU time per span: all their threads count as runnable)\n",
        fmt::join(h.activity_unknown, ","));
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
                          {"seconds_on_cpu", cpus}});
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

std::string job_html(const JobReport& job) {
  using html::escape;
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>threadmap job</title><style>"
      "body{font-family:system-ui,sans-serif;margin:1rem;max-width:1400px}"
      ".scroll{overflow-x:auto}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:2px "
      "6px;text-align:right;font-variant-numeric:tabular-nums}"
      "li.finding{margin:.2rem 0}code{background:#f3f3f3;padding:0 3px}"
      "</style></head><body>\n";
  out += "<h1>threadmap job</h1>\n<p>" + escape(job.dir) + ": " + std::to_string(job.records) +
         " rank record(s), " + std::to_string(job.hosts.size()) +
         " host(s). Seconds are "
         "thread-seconds, sampled: a thread counts on the CPU it last ran on until the next "
         "sample.</p>\n";
  out += "<h2>Findings</h2>\n";
  if (job.findings.empty()) {
    out += "<p>None: every rank's threads stayed in its own share.</p>\n";
  } else {
    out += "<ul>\n";
    for (const JobFinding& f : job.findings)
      out += "<li class=\"finding\"><code>" + escape(f.id) + "</code> " +
             (f.host.empty() ? "" : escape(f.host) + ": ") + escape(f.text) + "</li>\n";
    out += "</ul>\n";
  }
  std::string startup;
  for (const JobHost& h : job.hosts)
    if (std::string t = startup_text(h); !t.empty()) startup += escape(h.host) + ":\n" + escape(t);
  if (!startup.empty())
    out +=
        "<h2>Start-up</h2>\n<p>The launcher's and the MPI library's binding while the ranks "
        "started: shown apart, not findings.</p>\n<pre>" +
        startup + "</pre>\n";
  for (const JobHost& h : job.hosts) {
    std::vector<int> ranks = ranks_of(h);
    double most = 0;
    for (const auto& [key, s] : h.seconds) most = std::max(most, s);
    out += "<h2>Host " + escape(h.host) + "</h2>\n<div class=\"scroll\"><table><tr><th>CPU</th>";
    for (int r : ranks) out += "<th>rank " + std::to_string(r) + "</th>";
    out += "</tr>\n";
    for (int cpu : cpus_of(h)) {
      out += "<tr><th>" + std::to_string(cpu) + "</th>";
      for (int r : ranks) {
        const double s = seconds_at(h, cpu, r);
        const bool own = h.shares.at(r).contains(cpu);
        // Blue for time inside the rank's share, red outside it; darker = longer.
        const double alpha = most > 0 ? 0.15 + 0.85 * s / most : 0;
        std::string style = s > 0 ? fmt::format(" style=\"background:rgba({},{:.2f})\"",
                                                own ? "40,110,220" : "220,50,40", alpha)
                                  : "";
        out += "<td" + style + " title=\"" + (own ? "in its share" : "outside its share") + "\">" +
               cell(s) + "</td>";
      }
      out += "</tr>\n";
    }
    out += "</table></div>\n";
  }
  out += "</body></html>\n";
  return out;
}

}  // namespace threadmap::render
