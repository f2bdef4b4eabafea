// WatchHistory and the summary arithmetic (pure: tested on synthetic samples).
#include "src/monitor/watch_history.hpp"

#include <algorithm>
#include <map>

namespace threadmap::monitor {

namespace {

// The CPU time used since the previous sample goes to the span that held the thread; where it
// turns from waiting to running (or back) a new span starts at the previous sample.
void extend_last_span(ThreadTrack& t, const ThreadSample& s, double time_s) {
  if (t.spans.empty() || time_s <= t.spans.back().end_s) return;
  CpuSpan& last = t.spans.back();
  const double dt = time_s - last.end_s;
  const double used =
      s.counts.task_clock_ns > t.counts.task_clock_ns
          ? static_cast<double>(s.counts.task_clock_ns - t.counts.task_clock_ns) / 1e9
          : 0.0;
  const double waited = s.counts.wait_ns > t.counts.wait_ns
                            ? static_cast<double>(s.counts.wait_ns - t.counts.wait_ns) / 1e9
                            : 0.0;
  const bool active = used >= kActiveShare * dt;
  const bool starved = !active && waited >= kActiveShare * dt;
  if (last.end_s > last.start_s && (last.active != active || last.starved != starved)) {
    t.spans.push_back(CpuSpan{last.end_s, time_s, last.cpu, used, active, waited, starved});
  } else {
    last.end_s = time_s;
    last.cpu_s += used;
    last.active = active;
    last.wait_s += waited;
    last.starved = starved;
  }
}

// The sample's CPU, counters and time, after the span it closes was accounted.
void record_sample(ThreadTrack& t, const ThreadSample& s, double time_s) {
  extend_last_span(t, s, time_s);
  if (s.cpu >= 0) {
    if (t.spans.empty() || t.spans.back().cpu != s.cpu)
      t.spans.push_back(CpuSpan{time_s, time_s, s.cpu, 0.0, false, 0.0, false});
    ++t.samples_on_cpu[s.cpu];
  }
  t.previous = t.counts;
  t.previous_s = t.last_s;
  t.counts = s.counts;
  t.hardware = s.hardware;
  t.last_s = time_s;
  ++t.samples;
}

}  // namespace

void WatchHistory::add(const ProcessSample& sample, const std::vector<ProcessSeen>& processes) {
  if (samples_ == 0) first_s_ = sample.time_s;
  last_s_ = sample.time_s;
  ++samples_;
  peak_threads_ = std::max(peak_threads_, sample.threads.size());
  // A process's first sample: the threads alive then were not started during the watch.
  std::map<pid_t, bool> new_process;
  for (const ThreadSample& s : sample.threads) {
    const pid_t pid = s.pid > 0 ? s.pid : pid_;
    if (!new_process.count(pid))
      new_process[pid] = process_first_s_.emplace(pid, sample.time_s).second;
  }
  note_processes(processes, sample.time_s);
  bool added = false;
  for (const ThreadSample& s : sample.threads) {
    ThreadTrack& t = track_of(s, new_process, sample.time_s, added);
    if (!s.name.empty()) t.name = s.name;
    // A main thread's name is its process's command name, which is read at every sample: after
    // an exec it is the new program's at once, where thread names are re-read about once a
    // second.
    if (t.main_thread && follow_)
      if (auto p = process_index_.find(t.pid); p != process_index_.end())
        if (!processes_[p->second].comm.empty()) t.name = processes_[p->second].comm;
    record_sample(t, s, sample.time_s);
  }
  if (added) order_tracks();
}

void WatchHistory::note_processes(const std::vector<ProcessSeen>& processes, double time_s) {
  for (const ProcessSeen& p : processes) {
    auto [it, inserted] = process_index_.emplace(p.pid, processes_.size());
    if (inserted) {
      ProcessTrack track;
      track.pid = p.pid;
      track.first_s = time_s;
      processes_.push_back(std::move(track));
    }
    ProcessTrack& t = processes_[it->second];
    t.ppid = p.ppid;
    if (!p.comm.empty()) t.comm = p.comm;
    if (!p.exe.empty()) t.exe = p.exe;
    t.last_s = time_s;
  }
}

ThreadTrack& WatchHistory::track_of(const ThreadSample& s, std::map<pid_t, bool>& new_process,
                                    double time_s, bool& added) {
  auto [it, inserted] = index_.emplace(s.tid, threads_.size());
  // The same tid with another start time is another thread: the kernel handed the id out
  // again after the first one exited.
  bool reused = false;
  if (!inserted) {
    const ThreadTrack& known = threads_[it->second];
    reused = s.start_ticks != 0 && known.start_ticks != 0 && s.start_ticks != known.start_ticks;
    if (reused) it->second = threads_.size();
  }
  if (inserted || reused) {
    added = true;
    ThreadTrack track;
    track.tid = s.tid;
    track.pid = s.pid > 0 ? s.pid : pid_;
    track.main_thread = s.tid == track.pid;
    track.start_ticks = s.start_ticks;
    track.tid_reused = reused;
    track.at_first_sample = new_process[track.pid] && !reused;
    track.first_s = time_s;
    track.previous_s = time_s;
    threads_.push_back(std::move(track));
  }
  return threads_[it->second];
}

// Grouped by process (in the order found), then the main thread first, then the others in the
// order they appeared (ties: by tid, which the kernel hands out in increasing order, i.e.
// creation order). Only called when threads were added: re-sorting 1,000 tracks at every sample
// would dominate the cost of watching.
void WatchHistory::order_tracks() {
  std::stable_sort(threads_.begin(), threads_.end(),
                   [this](const ThreadTrack& a, const ThreadTrack& b) {
                     if (a.pid != b.pid) return process_rank(a.pid) < process_rank(b.pid);
                     if (a.main_thread != b.main_thread) return a.main_thread;
                     if (a.first_s != b.first_s) return a.first_s < b.first_s;
                     return a.tid < b.tid;
                   });
  // A reused tid maps to its newest thread (the later of the two in this order).
  for (size_t i = 0; i < threads_.size(); ++i) index_[threads_[i].tid] = i;
}

ThreadRates live_rates(const ThreadTrack& t) {
  ThreadRates r;
  const double dt = t.last_s - t.previous_s;
  if (dt <= 0) return r;
  r.cpu_percent =
      static_cast<double>(t.counts.task_clock_ns - t.previous.task_clock_ns) / 1e9 / dt * 100.0;
  r.migrations_per_s = static_cast<double>(t.counts.migrations - t.previous.migrations) / dt;
  r.switches_per_s =
      static_cast<double>(t.counts.context_switches - t.previous.context_switches) / dt;
  return r;
}

size_t WatchHistory::process_rank(pid_t pid) const {
  auto it = process_index_.find(pid);
  return it == process_index_.end() ? (pid == pid_ ? 0 : processes_.size()) : it->second;
}

std::vector<std::optional<CpuSet>> match_plan(const WatchHistory& history,
                                              const std::vector<PlannedThread>& plan,
                                              bool by_name) {
  const auto& all = history.threads();
  std::vector<std::optional<CpuSet>> out(all.size());
  // A plan places the watched program's threads; its children's are not its to place.
  std::vector<const ThreadTrack*> threads;
  std::vector<size_t> at;
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].pid == history.pid()) {
      threads.push_back(&all[i]);
      at.push_back(i);
    }
  size_t next_ordered = 0;
  std::vector<const PlannedThread*> ordered;
  for (const PlannedThread& p : plan) {
    if (p.thread == "main") {
      for (size_t i = 0; i < threads.size(); ++i)
        if (threads[i]->main_thread) out[at[i]] = p.cpus;
    } else if (by_name) {
      std::string name = p.thread.substr(0, 15);
      for (size_t i = 0; i < threads.size(); ++i)
        if (!threads[i]->main_thread && threads[i]->name == name) out[at[i]] = p.cpus;
    } else {
      ordered.push_back(&p);
    }
  }
  for (size_t i = 0; i < threads.size() && next_ordered < ordered.size(); ++i)
    if (!threads[i]->main_thread) out[at[i]] = ordered[next_ordered++]->cpus;
  return out;
}

WatchSummary summarize_watch(const WatchHistory& history,
                             const std::vector<std::optional<CpuSet>>& planned,
                             CounterSource source, bool hardware,
                             const std::string& hardware_note) {
  WatchSummary out;
  out.pid = history.pid();
  out.duration_s = history.last_s() - history.first_s();
  out.samples = history.samples();
  out.source = source;
  out.hardware = hardware;
  out.hardware_note = hardware_note;
  const auto& threads = history.threads();
  for (size_t i = 0; i < threads.size(); ++i) {
    const ThreadTrack& t = threads[i];
    ThreadSummary s;
    s.tid = t.tid;
    s.pid = t.pid;
    s.name = t.name;
    s.main_thread = t.main_thread;
    s.tid_reused = t.tid_reused;
    s.started_while_watched = !t.at_first_sample;
    s.first_s = t.first_s - history.first_s();
    s.seconds_seen = t.last_s - t.first_s;
    s.samples = t.samples;
    for (const auto& [cpu, n] : t.samples_on_cpu) s.cpus_visited.add(cpu);
    s.migrations = t.counts.migrations;
    s.context_switches = t.counts.context_switches;
    s.cpu_time_ms = static_cast<double>(t.counts.task_clock_ns) / 1e6;
    // Rates over the time the thread was watched; a thread seen once has no interval.
    if (s.seconds_seen > 0) {
      s.migrations_per_s = static_cast<double>(s.migrations) / s.seconds_seen;
      s.switches_per_s = static_cast<double>(s.context_switches) / s.seconds_seen;
    }
    if (i < planned.size() && planned[i]) {
      s.planned = planned[i];
      std::uint64_t on = 0, all = 0;
      for (const auto& [cpu, n] : t.samples_on_cpu) {
        all += n;
        if (planned[i]->contains(cpu)) on += n;
      }
      if (all > 0) s.share_on_planned = static_cast<double>(on) / static_cast<double>(all);
    }
    s.hardware = t.hardware;
    (s.started_while_watched ? out.threads_started : out.threads_at_start) += 1;
    out.total_migrations += s.migrations;
    out.threads.push_back(std::move(s));
  }
  out.peak_threads = history.peak_threads();
  out.follow = history.follow();
  for (const ProcessTrack& p : history.processes()) {
    ProcessSummary ps{
        p.pid, p.ppid, p.comm, p.exe, p.first_s, p.last_s, p.last_s < history.last_s(), 0};
    for (const ThreadTrack& t : threads) ps.threads += t.pid == p.pid ? 1 : 0;
    out.processes.push_back(std::move(ps));
  }
  if (out.duration_s > 0)
    out.migrations_per_s = static_cast<double>(out.total_migrations) / out.duration_s;
  return out;
}

}  // namespace threadmap::monitor
