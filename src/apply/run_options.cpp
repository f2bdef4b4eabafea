#include "src/apply/run_options.hpp"

#include <algorithm>
#include <cctype>

namespace threadmap::apply {

Status check_by_name(bool by_name, const std::string& plan_path) {
  if (by_name && plan_path.empty())
    return Error::bad_input("by_name", "matching threads by name needs a plan");
  return {};
}

std::string shell_join(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) {
    bool plain = !a.empty() && std::all_of(a.begin(), a.end(), [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) ||
             std::string("-_./=:,+@%").find(ch) != std::string::npos;
    });
    std::string q = a;
    if (!plain) {
      q = "'";
      for (char ch : a) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
      q += "'";
    }
    out += (out.empty() ? "" : " ") + q;
  }
  return out;
}

std::vector<std::string> run_arguments(const RunOptions& o) {
  std::vector<std::string> args = {"run"};
  auto text = [&](const char* flag, const std::string& value) {
    if (!value.empty()) args.insert(args.end(), {flag, value});
  };
  auto number = [&](const char* flag, const std::optional<int>& value) {
    if (value) args.insert(args.end(), {flag, std::to_string(*value)});
  };
  auto each = [&](const char* flag, const std::vector<std::string>& items) {
    for (const std::string& item : items) args.insert(args.end(), {flag, item});
  };
  auto flag = [&](const char* name, bool given) {
    if (given) args.push_back(name);
  };
  // A rank first: inside a job the share is the CPU list the rest applies to.
  text("--ranks", o.ranks);
  number("--local-rank", o.local_rank);
  number("--local-size", o.local_size);
  if (o.gpus > 0) args.insert(args.end(), {"--gpus", std::to_string(o.gpus)});
  text("--gpu-visibility", o.gpu_visibility);
  text("--topology", o.topology_file);
  text("--record", o.record_dir);
  text("--plan", o.plan_path);
  flag("--by-name", o.by_name);
  text("--cpus", o.cpus);
  if (o.policy) args.insert(args.end(), {"--policy", *o.policy});
  each("--skip", o.skip);
  each("--lib", o.libs);
  text("--mem", o.memory);
  flag("--inherit", o.inherit);
  flag("--override-affinity", o.override_affinity);
  flag("--thread-cache", o.thread_cache);
  flag("--stats", o.stats);
  flag("--watch", o.watch);
  flag("--follow", o.follow);
  number("--interval", o.interval_ms);
  flag("--verbose", o.verbose);
  args.push_back("--");
  args.insert(args.end(), o.command.begin(), o.command.end());
  return args;
}

std::string run_line(const RunOptions& options) {
  std::vector<std::string> args = run_arguments(options);
  args.insert(args.begin(), "threadmap");
  return shell_join(args);
}

namespace {

// The rank asked for: --ranks, or K/N from a local rank and size, which name the rank for
// launchers threadmap does not read.
Result<std::string> rank_of(const RunOptions& o) {
  if (!o.local_rank && !o.local_size) return o.ranks;
  if (!o.local_rank || !o.local_size)
    return Error::bad_input(o.local_rank ? "local_size" : "local_rank",
                            "a local rank and a local size go together");
  if (!o.ranks.empty() && o.ranks != "auto")
    return Error::bad_input("ranks",
                            "a local rank and size name the rank: no rank K/N besides them");
  return std::to_string(*o.local_rank) + "/" + std::to_string(*o.local_size);
}

}  // namespace

Result<RunCommand> run_request(const RunOptions& o) {
  if (o.command.empty()) return Error::bad_input("command", "no command given");
  // exec("") fails with ENOENT like a missing program; an empty name is a typo, not a program.
  if (o.command.front().empty())
    return Error::bad_input("command", "the program name after -- is empty");
  // Options that would be silently ignored are refused: the user meant something by them.
  if (o.interval_ms && !o.watch)
    return Error::bad_input("interval_ms", "a sampling interval applies to a watch only");
  // A rank record watches too, but only the rank's own process: following needs a watch.
  if (o.follow && !o.watch)
    return Error::bad_input("follow", "following the program's children applies to a watch only");
  if (o.stats && !o.thread_cache)
    return Error::bad_input("stats", "statistics of the thread cache need the thread cache");
  auto given_ranks = rank_of(o);
  if (!given_ranks) return given_ranks.error();
  const std::string ranks = *given_ranks;
  if (o.gpus > 0 && ranks.empty())
    return Error::bad_input("gpus", "GPUs per rank apply to a rank only (auto or K/N)");
  if (!o.topology_file.empty() && (ranks.empty() || o.gpus <= 0))
    return Error::bad_input("topology_file",
                            "a recorded topology decides where a rank's GPUs are: it goes with "
                            "a rank and GPUs per rank");
  if (!o.gpu_visibility.empty() && o.gpus <= 0)
    return Error::bad_input("gpu_visibility",
                            "which GPUs a rank's program sees goes with GPUs per rank (--gpus)");
  if (!o.gpu_visibility.empty() && o.gpu_visibility != "narrow" &&
      o.gpu_visibility != "all-own-first")
    return Error::bad_input("gpu_visibility",
                            "'" + o.gpu_visibility + "': expected narrow or all-own-first");
  if (!o.record_dir.empty() && ranks.empty())
    return Error::bad_input("record_dir", "a rank record needs a rank (auto or K/N)");
  if (!o.cpus.empty() && !ranks.empty())
    return Error::bad_input("cpus",
                            "a CPU list cannot be combined with a rank: the rank's share is the "
                            "CPU list (a policy orders the threads inside it)");
  if (o.policy && (!o.plan_path.empty() || (o.cpus.empty() && ranks.empty())))
    return Error::bad_input("policy",
                            "a policy orders a CPU list or a rank's share, without a plan");
  if (!o.plan_path.empty() && !o.cpus.empty())
    return Error::bad_input("cpus", "a plan and a CPU list cannot be combined");
  if (auto st = check_by_name(o.by_name, o.plan_path); !st) return st.error();
  // --mem alone also needs the pin library: it is what sets the policy in every thread.
  const bool pinning = !o.plan_path.empty() || !o.cpus.empty() || !o.libs.empty() ||
                       !o.memory.empty() || !ranks.empty();
  if (!pinning && !o.thread_cache)
    return Error::bad_input("", "nothing to apply to '" + o.command.front() +
                                    "': no plan, CPUs, library rule, memory policy, rank or "
                                    "thread cache (to run it as it is, run it without threadmap)");

  RunCommand checked;
  RunRequest& r = checked.request;
  r.plan_path = o.plan_path;
  r.by_name = o.by_name;
  r.cpus = o.cpus;
  r.policy = o.policy.value_or("compact");
  r.skip = o.skip;
  r.libs = o.libs;
  r.memory = o.memory;
  r.inherit = o.inherit;
  r.override_affinity = o.override_affinity;
  r.thread_cache = o.thread_cache;
  r.verbose = o.verbose;
  r.command = o.command;
  checked.watch = o.watch;
  checked.interval_ms = o.interval_ms.value_or(100);
  checked.follow = o.follow && o.watch;
  checked.stats = o.stats;
  checked.ranks = ranks;
  checked.gpus = o.gpus;
  checked.topology_file = o.topology_file;
  checked.gpu_visibility = o.gpu_visibility;
  checked.record_dir = o.record_dir;
  return checked;
}

}  // namespace threadmap::apply
