// Text and JSON views of a watch.
#include "src/render/watch_view.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "src/render/safe_text.hpp"
#include "src/render/text_table.hpp"

namespace threadmap::render {
namespace {

std::string percent(std::optional<double> share) {
  return share ? fmt::format("{:.1f}%", *share * 100.0) : "-";
}

const os::NodePages* node_in(const std::optional<os::NumaPages>& pages, int node) {
  if (!pages) return nullptr;
  for (const os::NodePages& n : pages->nodes)
    if (n.node == node) return &n;
  return nullptr;
}

std::string mib(std::uint64_t bytes) {
  return fmt::format("{:.1f}", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

// Pages per NUMA node at the start and at the end: one row per node that held pages at
// either reading (OS node numbers, as numa_maps writes them).
std::string numa_section(const monitor::WatchSummary& s) {
  if (!s.numa_start) return "(pages per NUMA node: not read — " + s.numa_note + ")\n";
  std::vector<int> nodes;
  for (const auto* pages : {&s.numa_start, &s.numa_end})
    if (*pages)
      for (const os::NodePages& n : (*pages)->nodes) nodes.push_back(n.node);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  TextTable table({"node>", "start pages>", "start MiB>", "end pages>", "end MiB>", "huge pages>"});
  for (int node : nodes) {
    const os::NodePages* a = node_in(s.numa_start, node);
    const os::NodePages* b = node_in(s.numa_end, node);
    table.add_row({std::to_string(node), a ? std::to_string(a->pages) : "0",
                   a ? mib(a->bytes) : "0.0", b ? std::to_string(b->pages) : "0",
                   b ? mib(b->bytes) : "0.0", b ? std::to_string(b->huge_pages) : "0"});
  }
  std::string out = fmt::format(
      "pages per NUMA node ({}, measured at {:.2f} s and at {:.2f} s{}):\n", s.numa_source,
      s.numa_start_s, s.numa_end_s, nodes.size() <= 1 ? "; one node: every page is local" : "");
  out += table.str();
  return out;
}

nlohmann::json numa_json(const std::optional<os::NumaPages>& pages, double at_s) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const os::NodePages& n : pages->nodes)
    nodes.push_back(
        {{"node", n.node}, {"pages", n.pages}, {"bytes", n.bytes}, {"huge_pages", n.huge_pages}});
  return {{"at_s", at_s}, {"nodes", nodes}};
}

std::string process_comm(const monitor::WatchHistory& history, pid_t pid) {
  for (const auto& p : history.processes())
    if (p.pid == pid) return p.comm;
  return "";
}

const monitor::ProcessSummary* process_of(const monitor::WatchSummary& s, pid_t pid) {
  for (const auto& p : s.processes)
    if (p.pid == pid) return &p;
  return nullptr;
}

// A thread's name with what tells it from others of the same name: "[main]" for the process's
// first thread (the JVM launcher's two `java` threads: the first one waits for the other),
// "[tid reused]" when the kernel gave its id to this thread after another had exited.
std::string thread_label(const std::string& name, bool main_thread, bool tid_reused) {
  std::string out = terminal_safe(name);
  if (main_thread) out += " [main]";
  if (tid_reused) out += " [tid reused]";
  return out;
}

// "23 threads (20 at the first sample, 3 started while watched; at most 21 at once)".
std::string thread_counts(const monitor::WatchSummary& s) {
  std::string out = fmt::format("{} threads", s.threads.size());
  if (s.threads.empty()) return out;
  return out +
         fmt::format(" ({} at the first sample, {} started while watched; at most {} at once)",
                     s.threads_at_start, s.threads_started, s.peak_threads);
}

// The per-thread table of the summary, for the threads given.
std::string thread_table(const monitor::WatchSummary& s,
                         const std::vector<const monitor::ThreadSummary*>& threads, bool planned) {
  std::vector<std::string> headers = {"tid>",         "name",        "seen s>",
                                      "CPUs visited", "migrations>", "migrations/s>",
                                      "switches/s>",  "CPU time ms>"};
  if (planned) {
    headers.push_back("planned");
    headers.push_back("on planned>");
  }
  if (s.hardware) {
    headers.push_back("cycles>");
    headers.push_back("IPC>");
    headers.push_back("L1D misses>");
    headers.push_back("LLC misses>");
  }
  TextTable table(headers);
  for (const monitor::ThreadSummary* tp : threads) {
    const auto& t = *tp;
    std::vector<std::string> row = {std::to_string(t.tid),
                                    thread_label(t.name, t.main_thread, t.tid_reused),
                                    fmt::format("{:.2f}", t.seconds_seen),
                                    t.cpus_visited.to_list(),
                                    std::to_string(t.migrations),
                                    fmt::format("{:.2f}", t.migrations_per_s),
                                    fmt::format("{:.1f}", t.switches_per_s),
                                    fmt::format("{:.1f}", t.cpu_time_ms)};
    if (planned) {
      row.push_back(t.planned ? t.planned->to_list() : "-");
      row.push_back(percent(t.share_on_planned));
    }
    if (s.hardware) {
      if (t.hardware) {
        double ipc = t.hardware->cycles ? static_cast<double>(t.hardware->instructions) /
                                              static_cast<double>(t.hardware->cycles)
                                        : 0.0;
        row.push_back(std::to_string(t.hardware->cycles));
        row.push_back(fmt::format("{:.2f}", ipc));
        row.push_back(std::to_string(t.hardware->l1d_misses));
        row.push_back(std::to_string(t.hardware->llc_misses));
      } else {
        for (int i = 0; i < 4; ++i) row.push_back("-");
      }
    }
    table.add_row(row);
  }
  return table.str();
}

// Following: one heading and table per process, in the order they were found.
std::string followed_tables(const monitor::WatchSummary& s, bool planned) {
  std::string out;
  if (s.processes_not_followed > 0)
    out += fmt::format(
        "warning: {} more processes were found after {} were followed, and not watched\n",
        s.processes_not_followed, s.max_processes);
  for (const auto& p : s.processes) {
    std::vector<const monitor::ThreadSummary*> threads;
    for (const auto& t : s.threads)
      if (t.pid == p.pid) threads.push_back(&t);
    out += fmt::format("process {} {} ({}), parent {}, seen {:.2f}-{:.2f} s{}: {} threads\n", p.pid,
                       terminal_safe(p.comm),
                       p.exe.empty() ? "executable unknown" : terminal_safe(p.exe), p.ppid,
                       p.first_s, p.last_s, p.ended ? ", exited" : "", threads.size());
    out += thread_table(s, threads, planned);
  }
  return out;
}

}  // namespace

std::string watch_live_table(const monitor::WatchHistory& history, size_t max_rows) {
  struct Row {
    const monitor::ThreadTrack* track;
    double cpu_percent, migrations_per_s, switches_per_s;
  };
  std::vector<Row> rows;
  for (const auto& t : history.threads()) {
    if (t.last_s != history.last_s()) continue;  // exited
    const monitor::ThreadRates rates = monitor::live_rates(t);
    rows.push_back(Row{&t, rates.cpu_percent, rates.migrations_per_s, rates.switches_per_s});
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.cpu_percent > b.cpu_percent; });
  const bool follow = history.follow();
  std::vector<std::string> headers = {"tid>",          "name",        "CPU now>",    "CPU %>",
                                      "migrations/s>", "switches/s>", "CPUs visited"};
  // Following, each thread says which process it belongs to: the pid and the command name.
  if (follow) headers.insert(headers.begin(), {"pid>", "process"});
  TextTable table(headers);
  size_t shown = std::min(rows.size(), max_rows);
  for (size_t i = 0; i < shown; ++i) {
    const auto& t = *rows[i].track;
    CpuSet visited;
    for (const auto& [cpu, n] : t.samples_on_cpu) visited.add(cpu);
    std::vector<std::string> row = {std::to_string(t.tid),
                                    thread_label(t.name, t.main_thread, t.tid_reused),
                                    t.spans.empty() ? "-" : std::to_string(t.spans.back().cpu),
                                    fmt::format("{:.1f}", rows[i].cpu_percent),
                                    fmt::format("{:.1f}", rows[i].migrations_per_s),
                                    fmt::format("{:.1f}", rows[i].switches_per_s),
                                    visited.to_list()};
    if (follow)
      row.insert(row.begin(), {std::to_string(t.pid), terminal_safe(process_comm(history, t.pid))});
    table.add_row(row);
  }
  std::string out;
  if (follow) {
    size_t live = 0;
    for (const auto& p : history.processes()) live += p.last_s == history.last_s() ? 1 : 0;
    out = fmt::format(
        "process {} and its descendants: {} processes ({} seen in all), {} threads, {:.1f} s "
        "watched, {} samples\n",
        history.pid(), live, history.processes().size(), rows.size(),
        history.last_s() - history.first_s(), history.samples());
  } else {
    out = fmt::format("process {}: {} threads, {:.1f} s watched, {} samples\n", history.pid(),
                      rows.size(), history.last_s() - history.first_s(), history.samples());
  }
  out += table.str();
  if (rows.size() > shown) out += fmt::format("... {} more threads\n", rows.size() - shown);
  out += "(CPU %, migrations/s, switches/s: over the last sampling interval)\n";
  return out;
}

std::string watch_empty_text(const monitor::WatchSummary& s) {
  return fmt::format(
      "watch summary: process {} exited after {:.3f} s, before the first sample: no thread was "
      "seen (sample sooner with --interval)\n",
      s.pid, s.duration_s);
}

std::string watch_summary_text(const monitor::WatchSummary& s) {
  bool planned = std::any_of(s.threads.begin(), s.threads.end(),
                             [](const monitor::ThreadSummary& t) { return t.planned.has_value(); });
  std::string out;
  if (s.follow) {
    out = fmt::format(
        "watch summary: process {} and its descendants, {} processes, {}, {:.2f} s, {} "
        "samples; {} migrations in all ({:.2f}/s)\n",
        s.pid, s.processes.size(), thread_counts(s), s.duration_s, s.samples, s.total_migrations,
        s.migrations_per_s);
    out += followed_tables(s, planned);
  } else {
    std::vector<const monitor::ThreadSummary*> threads;
    for (const auto& t : s.threads) threads.push_back(&t);
    out = fmt::format(
        "watch summary: process {}, {}, {:.2f} s, {} samples; {} migrations in all "
        "({:.2f}/s)\n",
        s.pid, thread_counts(s), s.duration_s, s.samples, s.total_migrations, s.migrations_per_s);
    out += thread_table(s, threads, planned);
  }
  out += fmt::format(
      "(migrations, switches, CPU time: {} over the time each thread was watched; "
      "CPUs visited{}: CPU seen at each sample)\n",
      monitor::counter_source_name(s.source), planned ? " and on planned (share of samples)" : "");
  out +=
      "(threads: new thread ids listed under /proc/PID/task at each sample, so one that started "
      "and ended between two samples is not seen; [main]: the process's first thread, tid = pid; "
      "[tid reused]: the kernel gave this thread the id of one that exited earlier in the "
      "watch)\n";
  out += s.hardware ? "(hardware counters: perf_event_open, user space only)\n"
                    : "(cycles, instructions, L1D and LLC misses: not supported — " +
                          s.hardware_note + ")\n";
  out += numa_section(s);
  return out;
}

namespace {

// Where one thread ran over the watch, span by span.
nlohmann::json spans_json(const monitor::WatchSummary& s, const monitor::ThreadTrack& track) {
  nlohmann::json spans = nlohmann::json::array();
  for (const auto& span : track.spans) {
    nlohmann::json j = {{"start_s", span.start_s}, {"end_s", span.end_s}, {"cpu", span.cpu}};
    // CPU time per span only where a counter measured it (not when merely observed).
    if (s.source != monitor::CounterSource::observed) j["cpu_s"] = span.cpu_s;
    // Run-queue wait (schedstat): where it is kept, a starved thread is told from a sleeping
    // one.
    if (track.counts.wait_ns > 0 || span.wait_s > 0) j["wait_s"] = span.wait_s;
    spans.push_back(std::move(j));
  }
  return spans;
}

nlohmann::json thread_json(const monitor::WatchSummary& s, const monitor::ThreadSummary& t,
                           nlohmann::json spans) {
  nlohmann::json j = {{"tid", t.tid},
                      {"name", valid_utf8(t.name)},
                      {"main_thread", t.main_thread},
                      {"tid_reused", t.tid_reused},
                      {"first_s", t.first_s},
                      {"started_while_watched", t.started_while_watched},
                      {"seconds_seen", t.seconds_seen},
                      {"samples", t.samples},
                      {"cpus_visited", t.cpus_visited.to_vector()},
                      {"migrations", t.migrations},
                      {"migrations_per_s", t.migrations_per_s},
                      {"context_switches", t.context_switches},
                      {"context_switches_per_s", t.switches_per_s},
                      {"cpu_time_ms", t.cpu_time_ms},
                      {"spans", std::move(spans)}};
  if (s.follow) {
    const monitor::ProcessSummary* p = process_of(s, t.pid);
    j["pid"] = t.pid;
    j["comm"] = valid_utf8(p ? p->comm : "");
  }
  if (t.planned) j["planned_cpus"] = t.planned->to_vector();
  if (t.share_on_planned) j["share_on_planned"] = *t.share_on_planned;
  if (t.hardware) {
    j["hardware"] = {{"cycles", t.hardware->cycles},
                     {"instructions", t.hardware->instructions},
                     {"l1d_misses", t.hardware->l1d_misses},
                     {"llc_misses", t.hardware->llc_misses}};
  } else {
    j["hardware"] = "not supported";
  }
  return j;
}

// The processes of a followed family (watch --follow).
void add_processes_json(const monitor::WatchSummary& s, nlohmann::json& doc) {
  nlohmann::json processes = nlohmann::json::array();
  for (const auto& p : s.processes)
    processes.push_back(
        {{"pid", p.pid},
         {"ppid", p.ppid},
         {"comm", valid_utf8(p.comm)},
         {"exe", p.exe.empty() ? nlohmann::json() : nlohmann::json(valid_utf8(p.exe))},
         {"first_s", p.first_s},
         {"last_s", p.last_s},
         {"exited", p.ended},
         {"threads", p.threads}});
  doc["follow"] = true;
  doc["processes"] = std::move(processes);
  doc["max_processes"] = s.max_processes;
  doc["processes_not_followed"] = s.processes_not_followed;
}

}  // namespace

nlohmann::json watch_json(const monitor::WatchSummary& s, const monitor::WatchHistory& history) {
  nlohmann::json threads = nlohmann::json::array();
  const auto& tracks = history.threads();
  for (size_t i = 0; i < s.threads.size(); ++i)
    threads.push_back(thread_json(
        s, s.threads[i], i < tracks.size() ? spans_json(s, tracks[i]) : nlohmann::json::array()));
  nlohmann::json numa = "not read: " + s.numa_note;
  if (s.numa_start)
    numa = {{"source", s.numa_source},
            {"start", numa_json(s.numa_start, s.numa_start_s)},
            {"end", numa_json(s.numa_end, s.numa_end_s)}};
  nlohmann::json doc = {
      {"schema", "threadmap.watch/1"},
      {"pid", s.pid},
      {"numa_pages", numa},
      {"duration_s", s.duration_s},
      {"samples", s.samples},
      {"counter_source", monitor::counter_source_name(s.source)},
      {"hardware_counters", s.hardware ? nlohmann::json("supported")
                                       : nlohmann::json("not supported: " + s.hardware_note)},
      {"total_migrations", s.total_migrations},
      {"migrations_per_s", s.migrations_per_s},
      {"threads_at_start", s.threads_at_start},
      {"threads_started", s.threads_started},
      {"peak_threads", s.peak_threads},
      {"threads", threads}};
  if (s.follow) add_processes_json(s, doc);
  return doc;
}

}  // namespace threadmap::render
