#include "src/tune/tune_run.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <numeric>

#include "src/apply/run_command.hpp"
#include "src/os/install_layout.hpp"
#include "src/os/measured_run.hpp"
#include "src/os/monotonic_clock.hpp"
#include "src/os/process.hpp"

namespace threadmap::tune {
namespace {

double now_s() { return static_cast<double>(os::monotonic_ns()) / 1e9; }

double mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string failure_text(int status, int run, const std::string& output) {
  std::string what = status > 128 ? "killed by signal " + std::to_string(status - 128)
                                  : "exit status " + std::to_string(status);
  std::string tail = one_line(last_lines(output, 3));
  return what + " on run " + std::to_string(run) +
         (tail.empty() ? std::string(", no output") : "; last output: " + tail);
}

// A busy verdict outranks quiet, quiet outranks unknown: the candidate keeps the worst it saw.
int rank_of(const MachineState& s) {
  switch (s.verdict) {
    case MachineVerdict::busy:
      return 2;
    case MachineVerdict::quiet:
      return 1;
    case MachineVerdict::unknown:
      break;
  }
  return 0;
}

// Whether another round could change the answer: the leader against os (or, when os leads,
// os against the runner-up) and the leader against the runner-up are both either clear or
// beyond what more runs can settle.
bool more_rounds_could_help(TuneResult& r, const VerdictOptions& options) {
  judge(r, options);
  const CandidateResult* leader = r.at(r.leader);
  if (!leader) return false;
  const CandidateResult* runner_up = nullptr;
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    const CandidateResult& c = r.candidates[i];
    if (c.failed || c.samples.empty() || i == r.leader) continue;
    bool higher = r.metric.higher_is_better;
    if (!runner_up || (higher ? c.interval.median > runner_up->interval.median
                              : c.interval.median < runner_up->interval.median))
      runner_up = &c;
  }
  auto unsettled = [&](const Verdict& v) {
    return !v.clear() && v.more_samples_could_help(options);
  };
  if (unsettled(leader->vs_os)) return true;
  if (runner_up && unsettled(runner_up->vs_leader)) return true;
  return false;
}

}  // namespace

namespace {

// The launch of every candidate, prepared (and so checked) before anything runs, and a result
// row for each.
Result<std::vector<os::LaunchSpec>> prepare_candidates(const CandidateSet& set, TuneResult& r) {
  std::vector<os::LaunchSpec> launches;
  for (const Candidate& c : set.list) {
    os::LaunchSpec launch;
    if (!c.launcher.empty()) {
      // A job: the launcher starts the ranks, each under our own `run --ranks auto`, which
      // prepares its launch inside the rank (its share is known only there).
      launch.argv = c.launcher;
      if (c.is_os()) {
        launch.argv.insert(launch.argv.end(), c.options.command.begin(), c.options.command.end());
      } else {
        const std::string self = os::self_executable();
        if (self.empty())
          return Error::from_errno(ENOENT, "cannot find our own executable to start the ranks");
        launch.argv.push_back(self);
        std::vector<std::string> run = apply::run_arguments(c.options);
        launch.argv.insert(launch.argv.end(), run.begin(), run.end());
      }
    } else if (c.is_os()) {
      launch.argv = c.options.command;
    } else {
      // The same check and launch as `threadmap run` with these options.
      auto checked = apply::run_request(c.options);
      if (!checked) return checked.error().with_context("candidate " + c.name);
      apply::RunHooks hooks;  // a static program: placed as a whole process, said once
      hooks.note = [&](const std::string& line) {
        r.notes.push_back("candidate " + c.name + ": " + line);
      };
      auto prepared = apply::prepare_command(*checked, hooks, /*watch_for_record=*/false);
      if (!prepared) return prepared.error().with_context("candidate " + c.name);
      launch = prepared->launch;
    }
    launches.push_back(std::move(launch));
    CandidateResult cr;
    cr.candidate = c;
    cr.how = run_line(c);
    r.candidates.push_back(std::move(cr));
  }
  return launches;
}

Error metric_not_found(const Metric& metric, const std::string& output) {
  return Error::from_errno(ENODATA, "the metric '" + metric.pattern +
                                        "' matched nothing the program printed on its "
                                        "first run; its last lines: " +
                                        one_line(last_lines(output, 3)));
}

// One unrecorded warm-up run without placement: it fills the page cache for the rounds that
// count, checks the metric can be read at all, and keeps the output for the record. Returns
// whether the metric was found (false when the warm-up failed or was interrupted).
Result<bool> warm_up(const os::LaunchSpec& launch, const Metric& metric, TuneResult& r) {
  auto warm = os::run_measured(launch);
  if (!warm) return warm.error();
  r.record_output = warm->output;
  r.record_truncated = warm->output_truncated;
  if (os::InterruptFlag::interrupted()) {
    r.interrupted = true;
    r.stopped = "interrupted during the warm-up run";
    return false;
  }
  if (warm->exit_status != 0) return false;
  if (!metric_value(metric, *warm)) return metric_not_found(metric, warm->output);
  return true;
}

// What the rounds share while they run.
struct TuneLoop {
  TuneResult& r;
  const Metric& metric;
  const TuneSettings& settings;
  const std::vector<os::LaunchSpec>& launches;
  CpuSet watched;             ///< the CPUs whose neighbours are watched around each run
  double t0 = 0;              ///< start of the warm-up
  double estimate_run_s = 0;  ///< a run's time before a candidate has its own
  bool metric_checked = false;
  bool previous_busy = false;
  int round = 0;
};

// The expected time of one round of the live candidates, with the look at the neighbours
// before each run.
double round_seconds(const TuneLoop& loop, const std::vector<std::size_t>& live) {
  double round_s = 0;
  for (std::size_t i : live) {
    const CandidateResult& c = loop.r.candidates[i];
    round_s += (c.wall_s.empty() ? loop.estimate_run_s : mean(c.wall_s)) +
               loop.settings.idle_window_ms / 1000.0;
  }
  return round_s;
}

// Why no further round runs, or "" to run one: the round cap, the budget (binding after the
// first round), or verdicts that more runs could not change.
std::string stop_reason(TuneLoop& loop, double round_s) {
  const TuneSettings& settings = loop.settings;
  const double elapsed = now_s() - loop.t0;
  if (loop.round >= settings.max_rounds)
    return "reached " + std::to_string(settings.max_rounds) + " rounds";
  if (loop.round >= 1 && elapsed + round_s > settings.budget_s)
    return "budget of " + fixed(settings.budget_s, 1) + " s spent";
  if (loop.round >= settings.min_rounds && !more_rounds_could_help(loop.r, settings.verdict))
    return loop.r.rounds_disturbed == loop.round
               ? "every round was disturbed (more rounds on this machine as busy as it is cannot "
                 "decide)"
               : "verdicts settled (more runs could not change them)";
  return "";
}

void report_progress(const TuneLoop& loop, const CandidateResult& c, double value, bool busy,
                     double round_s) {
  const TuneSettings& settings = loop.settings;
  if (!settings.progress) return;
  Progress p;
  p.candidate = c.candidate.name;
  p.unit = loop.metric.unit();
  p.round = loop.round;
  p.min_rounds = settings.min_rounds;
  p.value = value;
  p.disturbed = busy;
  p.elapsed_s = now_s() - loop.t0;
  double left_rounds = std::max(0, settings.min_rounds - loop.round);
  p.estimate_s = std::min(left_rounds * round_s, std::max(0.0, settings.budget_s - p.elapsed_s));
  settings.progress(p);
}

// done: the run was kept, or the candidate failed, or Ctrl-C came; repeat: the machine was busy
// in a burst, so the run is dropped and run again.
enum class RunOutcome { done, repeat };

// One measured run of candidate i with the machine watched around it.
Result<RunOutcome> run_candidate_once(TuneLoop& loop, std::size_t i, int attempt, double round_s) {
  TuneResult& r = loop.r;
  CandidateResult& c = r.candidates[i];
  MachineWatch watch;
  watch.start(loop.watched, loop.settings.idle_window_ms);
  auto run = os::run_measured(loop.launches[i]);
  MachineState state = watch.finish();
  if (!run) return run.error().with_context("candidate " + c.candidate.name);
  if (os::InterruptFlag::interrupted()) {
    r.interrupted = true;
    return RunOutcome::done;
  }
  const int run_number = static_cast<int>(c.samples.size()) + 1;
  if (c.samples.empty()) {
    c.first_output = run->output;
    c.first_output_truncated = run->output_truncated;
  }
  if (run->exit_status != 0) {
    c.failed = true;
    c.failure = failure_text(run->exit_status, run_number, run->output);
    return RunOutcome::done;
  }
  auto value = metric_value(loop.metric, *run);
  if (!value) {
    if (!loop.metric_checked) return metric_not_found(loop.metric, run->output);
    c.failed = true;
    c.failure = "run " + std::to_string(run_number) + " printed nothing matching '" +
                loop.metric.pattern + "'; last output: " + one_line(last_lines(run->output, 3));
    return RunOutcome::done;
  }
  loop.metric_checked = true;
  const bool busy = state.busy();
  // Repeating helps against a burst; under lasting load (the run before was busy too)
  // the repeat would be as disturbed, so the run is kept and marked instead.
  const bool lasting = loop.previous_busy;
  loop.previous_busy = busy;
  if (busy && !lasting && attempt < loop.settings.repeat_disturbed) {
    ++c.repeated;
    return RunOutcome::repeat;
  }
  if (busy) ++c.disturbed_kept;
  c.disturbed.push_back(busy);
  if (rank_of(state) >= rank_of(c.machine_state)) c.machine_state = state;
  if (rank_of(state) >= rank_of(r.machine_state)) r.machine_state = state;
  c.samples.push_back(*value);
  c.wall_s.push_back(run->wall_s);
  report_progress(loop, c, *value, busy, round_s);
  return RunOutcome::done;
}

// One round: every live candidate once, the order reversed every other round so no candidate
// always runs right after the same one.
Status run_round(TuneLoop& loop, std::vector<std::size_t> live, double round_s) {
  if (loop.round % 2 == 0) std::reverse(live.begin(), live.end());
  for (std::size_t i : live) {
    for (int attempt = 0;; ++attempt) {
      Result<RunOutcome> outcome = run_candidate_once(loop, i, attempt, round_s);
      if (!outcome) return outcome.error();
      if (*outcome == RunOutcome::done) break;
    }
    if (loop.r.interrupted) break;
  }
  return {};
}

// Rounds until one of stop_reason's rules, every candidate failed, or Ctrl-C.
Status run_rounds(TuneLoop& loop) {
  TuneResult& r = loop.r;
  while (!r.interrupted) {
    std::vector<std::size_t> live;
    for (std::size_t i = 0; i < r.candidates.size(); ++i)
      if (!r.candidates[i].failed) live.push_back(i);
    if (live.empty()) {
      r.stopped = "every candidate failed";
      break;
    }
    const double round_s = round_seconds(loop, live);
    r.stopped = stop_reason(loop, round_s);
    if (!r.stopped.empty()) break;
    ++loop.round;
    if (Status st = run_round(loop, std::move(live), round_s); !st) return st;
  }
  return {};
}

}  // namespace

Result<TuneResult> run_tune(const CandidateSet& set, const Metric& metric,
                            const TuneSettings& settings, const Topology& topology) {
  TuneResult r;
  r.metric = metric;
  r.notes = set.notes;
  r.budget_s = settings.budget_s;
  auto launches = prepare_candidates(set, r);
  if (!launches) return launches.error();
  os::InterruptFlag interrupt;
  TuneLoop loop{r, metric, settings, *launches, topology.allowed_cpus()};
  loop.t0 = now_s();
  Result<bool> metric_found = warm_up((*launches)[0], metric, r);
  if (!metric_found) return metric_found.error();
  loop.metric_checked = *metric_found;
  loop.estimate_run_s = now_s() - loop.t0;
  if (Status st = run_rounds(loop); !st) return st.error();
  if (r.interrupted && r.stopped.empty())
    r.stopped =
        "interrupted (Ctrl-C): verdicts on what was "
        "found so far";
  r.rounds = loop.round;
  r.elapsed_s = now_s() - loop.t0;
  judge(r, settings.verdict);
  bool any_ok = false;
  for (const auto& c : r.candidates) any_ok = any_ok || (!c.failed && !c.samples.empty());
  if (!any_ok && !r.interrupted) {
    for (const auto& c : r.candidates)
      if (c.failed)
        return Error::from_errno(EIO, "the program failed under every candidate; under " +
                                          c.candidate.name + ": " + c.failure);
  }
  return r;
}

}  // namespace threadmap::tune
