// ProcessTreeSampler: one ThreadSampler per followed process, the family found through src/os
// (children files, or the parent field of every process's stat).
#include "src/monitor/process_tree_sampler.hpp"

#include <cerrno>
#include <chrono>
#include <map>
#include <set>
#include <vector>

#include "src/os/kernel_affinity.hpp"

namespace threadmap::monitor {

namespace {

struct Followed {
  std::unique_ptr<ThreadSampler> sampler;
  ProcessSeen seen;
};

// Weakest first: a summary names the weakest source any thread had.
int strength(CounterSource s) {
  return s == CounterSource::observed ? 0 : s == CounterSource::sched ? 1 : 2;
}

}  // namespace

struct ProcessTreeSampler::State {
  pid_t root = 0;
  FollowOptions follow;
  SamplerOptions options;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::map<pid_t, Followed> live;
  std::vector<pid_t> found_order;  // every process ever followed, root first
  std::set<pid_t> refused;         // found past the bound
  // The watcher itself is a descendant when it watches its own shell: it is not what the user
  // asked to see, and its own sampling would be counted.
  pid_t self = os::current_pid();
  bool started = false;
  CounterSource source = CounterSource::perf;
  bool hardware = false;
  std::vector<ProcessSeen> seen_now;  // at the last sample

  // Starts following `pid`; false when it is gone already or the bound is reached.
  bool add(pid_t pid) {
    if (found_order.size() >= follow.max_processes) {
      refused.insert(pid);
      return false;
    }
    auto who = os::read_process_identity(pid);
    if (!who) return false;
    Followed f;
    f.sampler = std::make_unique<ThreadSampler>(pid, options);
    f.seen = ProcessSeen{pid, who->ppid, who->comm, exe_of(pid)};
    live.emplace(pid, std::move(f));
    found_order.push_back(pid);
    return true;
  }

  static std::string exe_of(pid_t pid) {
    auto exe = os::read_executable_path(pid);
    return exe ? *exe : std::string();
  }

  // Children of every followed process, and theirs, until no new one turns up.
  void discover() {
    std::vector<pid_t> work;
    for (const auto& [pid, f] : live) work.push_back(pid);
    while (!work.empty()) {
      const pid_t parent = work.back();
      work.pop_back();
      auto children = os::list_child_processes(parent, follow.lookup);
      if (!children) continue;  // it ended meanwhile: its sampler says so below
      for (pid_t child : *children)
        if (child != self && !live.count(child) && !refused.count(child) && add(child))
          work.push_back(child);
    }
  }

  // Who the process is now; false when it ended (a zombie has no threads left to watch).
  bool refresh(Followed& f) {
    auto who = os::read_process_identity(f.seen.pid);
    if (!who || who->state == 'Z' || who->state == 'X') return false;
    f.seen.ppid = who->ppid;
    if (who->comm != f.seen.comm) {  // an exec: the executable changed with the name
      f.seen.comm = who->comm;
      f.seen.exe = exe_of(f.seen.pid);
    }
    return true;
  }

  void note_counters(const ThreadSampler& s) {
    if (strength(s.source()) < strength(source)) source = s.source();
    hardware = hardware || s.hardware_counters();
  }
};

ProcessTreeSampler::ProcessTreeSampler(pid_t root, FollowOptions follow, SamplerOptions options)
    : state_(new State) {
  state_->root = root;
  state_->follow = follow;
  state_->options = options;
  if (!follow.follow) {
    // One process: its sampler is made here, so its errors and clock are the ones a watch
    // without --follow always had.
    Followed f;
    f.sampler = std::make_unique<ThreadSampler>(root, options);
    f.seen.pid = root;
    state_->live.emplace(root, std::move(f));
    state_->found_order.push_back(root);
    state_->started = true;
  }
}

ProcessTreeSampler::~ProcessTreeSampler() = default;

Result<ProcessSample> ProcessTreeSampler::sample() {
  State& s = *state_;
  if (!s.follow.follow) {
    ThreadSampler& one = *s.live.begin()->second.sampler;
    auto sample = one.sample();
    s.note_counters(one);
    return sample;
  }
  if (!s.started) {
    s.started = true;
    if (!s.add(s.root))
      return Error::from_errno(ESRCH, "no process with pid " + std::to_string(s.root));
  }
  ProcessSample out;
  s.seen_now.clear();
  out.time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.start).count();
  s.discover();
  for (pid_t pid : s.found_order) {
    auto it = s.live.find(pid);
    if (it == s.live.end()) continue;
    Followed& f = it->second;
    auto sample = s.refresh(f) ? f.sampler->sample()
                               : Result<ProcessSample>(Error::from_errno(ESRCH, "ended"));
    s.note_counters(*f.sampler);
    if (!sample) {
      // An ended process keeps what was recorded of it; any other failure is the watch's.
      if (sample.error().code.value() != ESRCH) return sample.error();
      s.live.erase(it);
      continue;
    }
    for (ThreadSample& t : sample->threads) out.threads.push_back(std::move(t));
    s.seen_now.push_back(f.seen);
  }
  if (s.live.empty())
    return Error::from_errno(
        ESRCH, "process " + std::to_string(s.root) + " and the processes it started have exited");
  return out;
}

const std::vector<ProcessSeen>& ProcessTreeSampler::processes() const { return state_->seen_now; }
CounterSource ProcessTreeSampler::source() const { return state_->source; }
bool ProcessTreeSampler::hardware_counters() const { return state_->hardware; }
std::uint64_t ProcessTreeSampler::processes_not_followed() const { return state_->refused.size(); }

}  // namespace threadmap::monitor
