#include "src/tune/candidates.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "src/plan/plan_file.hpp"
#include "src/plan/policy.hpp"

namespace threadmap::tune {
namespace {

// The first group of `level` that has allowed CPUs, restricted to them.
CpuSet first_group(const Topology& topology, Level level) {
  const CpuSet allowed = topology.allowed_cpus();
  for (const CpuSet& g : topology.groups(level)) {
    CpuSet mine = g & allowed;
    if (!mine.empty()) return mine;
  }
  return allowed;
}

// One allowed CPU per core: the first of each core's allowed PUs.
CpuSet one_per_core(const Topology& topology) {
  const CpuSet allowed = topology.allowed_cpus();
  CpuSet out;
  for (const CpuSet& g : topology.groups(Level::core)) {
    CpuSet mine = g & allowed;
    if (!mine.empty()) out.add(mine.first());
  }
  return out.empty() ? allowed : out;
}

Candidate on_cpus(const std::string& name, const std::string& meaning, const Topology& topology,
                  const CpuSet& cpus, plan::Policy policy) {
  Candidate c;
  c.name = name;
  c.options.cpus = cpus.to_list();
  c.options.policy = plan::policy_name(policy);
  c.order = plan::order_cpus(topology, cpus, policy);
  std::string order;
  for (int cpu : c.order) order += (order.empty() ? "" : ",") + std::to_string(cpu);
  c.meaning = meaning + ": threads take CPUs " + order + " in turn";
  return c;
}

// Two candidates do the same thing when they pin in the same order with the same memory
// policy, plan and cache (the OS placement pins nothing: order empty, no plan).
bool same_effect(const Candidate& a, const Candidate& b) {
  return a.order == b.order && a.options.plan_path == b.options.plan_path &&
         a.options.memory == b.options.memory && a.options.thread_cache == b.options.thread_cache;
}

}  // namespace

bool Candidate::pins() const {
  if (is_os()) return false;
  if (!launcher.empty()) return true;  // every rank places its threads inside its share
  return !order.empty() || !options.plan_path.empty();
}

int Candidate::parts() const {
  return (pins() ? 1 : 0) + (options.memory.empty() ? 0 : 1) + (options.thread_cache ? 1 : 0);
}

bool Candidate::simpler_than(const Candidate& other) const {
  if (parts() >= other.parts()) return false;
  if (pins() &&
      !(other.pins() && order == other.order && options.plan_path == other.options.plan_path &&
        options.policy == other.options.policy))
    return false;
  if (!options.memory.empty() && options.memory != other.options.memory) return false;
  if (options.thread_cache && !other.options.thread_cache) return false;
  return true;
}

Error candidate_plan_error(const Error& error, const std::string& name) {
  // tune(1): a plan that cannot be read is the work's failure, one that is not a plan (the
  // reader's EINVAL) a candidate that cannot be prepared, the command line's.
  Error about = error.with_context("candidate '" + name + "'");
  return error.code == std::errc::invalid_argument ? about.as_bad_input("candidates")
                                                   : about.about("candidates");
}

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

int nodes_with_cpus(const Topology& topology) {
  int n = 0;
  for (const NumaNode& node : topology.numa_nodes())
    if (node.cpus.intersects(topology.allowed_cpus())) ++n;
  return n;
}

const std::vector<std::string>& builtin_candidate_names() {
  static const std::vector<std::string> names = {
      "os",       "compact",   "scatter",        "core-per-thread", "one-core",  "one-l3",
      "one-node", "mem-local", "mem-interleave", "cache",           "plan:FILE", "cpus:EXPR"};
  return names;
}

namespace {

// The names asked for (the built-ins when none), with "os" first: every verdict is against the
// OS placement, so it is always measured, and first.
std::vector<std::string> candidate_names(const std::string& list, bool multi_node,
                                         std::vector<std::string>& notes) {
  std::vector<std::string> names = split_names(list);
  if (names.empty()) {
    names = {"os", "compact", "scatter", "core-per-thread", "one-core", "one-l3", "one-node"};
    if (multi_node) names.insert(names.end(), {"mem-local", "mem-interleave"});
  }
  auto os_at = std::find(names.begin(), names.end(), kOsCandidate);
  if (os_at == names.end())
    notes.push_back("os added: every candidate is judged against no placement");
  else
    names.erase(os_at);
  names.insert(names.begin(), kOsCandidate);
  return names;
}

// A plan file or a CPU list the user named: read and checked here, before anything runs.
Result<Candidate> candidate_from_argument(const std::string& name, const Topology& topology,
                                          const CpuSet& all) {
  Candidate c;
  if (name.rfind("plan:", 0) == 0 && name.size() > 5) {
    auto plan = plan::read_plan_file(name.substr(5));
    if (!plan) return candidate_plan_error(plan.error(), name);
    c.name = name;
    c.options.plan_path = name.substr(5);
    for (const auto& a : plan->assignments)
      if (!a.cpus.empty()) c.order.push_back(a.cpus.first());
    c.meaning = "the plan " + name.substr(5);
    return c;
  }
  if (name.rfind("cpus:", 0) == 0 && name.size() > 5) {
    auto cpus = topology.resolve(name.substr(5));
    if (!cpus)
      return Error::bad_input("candidates", "candidate '" + name + "': " + cpus.error().message);
    if (cpus->empty() || !cpus->is_subset_of(all))
      return Error::bad_input("candidates",
                              "candidate '" + name + "': CPUs " + cpus->to_list() +
                                  " are not all allowed here (allowed: " + all.to_list() + ")");
    return on_cpus(name, "CPUs " + cpus->to_list() + " compact", topology, *cpus,
                   plan::Policy::compact);
  }
  std::string known;
  for (const auto& k : builtin_candidate_names()) known += (known.empty() ? "" : ", ") + k;
  return Error::bad_input("candidates", "unknown candidate '" + name + "' (known: " + known + ")");
}

// One candidate by name: a built-in placement on this machine, or candidate_from_argument.
Result<Candidate> build_candidate(const std::string& name, const Topology& topology,
                                  const CpuSet& all) {
  Candidate c;
  if (name == kOsCandidate) {
    c.kind = Candidate::Kind::os;
    c.name = name;
    c.meaning = "no placement: the OS scheduler decides";
  } else if (name == "compact") {
    c = on_cpus(name, "compact over all CPUs", topology, all, plan::Policy::compact);
  } else if (name == "scatter") {
    c = on_cpus(name, "scatter over all CPUs", topology, all, plan::Policy::scatter);
  } else if (name == "core-per-thread") {
    c = on_cpus(name, "one core per thread (no SMT sibling shared)", topology,
                one_per_core(topology), plan::Policy::compact);
  } else if (name == "one-core") {
    c = on_cpus(name, "everything on one core", topology, first_group(topology, Level::core),
                plan::Policy::compact);
  } else if (name == "one-l3") {
    c = on_cpus(name, "one L3 domain", topology, first_group(topology, Level::l3),
                plan::Policy::compact);
  } else if (name == "one-node") {
    c = on_cpus(name, "one NUMA node", topology, first_group(topology, Level::numa),
                plan::Policy::compact);
  } else if (name == "mem-local" || name == "mem-interleave") {
    c.name = name;
    c.options.memory = name == "mem-local" ? "local" : "interleave";
    c.meaning = "no CPU placement, memory policy " + c.options.memory;
  } else if (name == "cache") {
    c.name = name;
    c.options.thread_cache = true;
    c.meaning = "no CPU placement, with the thread cache";
  } else {
    return candidate_from_argument(name, topology, all);
  }
  return c;
}

// With the thread cache asked for, a copy of each candidate that does not have it yet.
void add_cache_copies(std::vector<Candidate>& built) {
  const std::size_t n = built.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (built[i].options.thread_cache) continue;
    Candidate c = built[i];
    c.kind = Candidate::Kind::placement;  // os+cache applies the cache: it is not the baseline
    c.name += "+cache";
    c.meaning += ", with the thread cache";
    c.options.thread_cache = true;
    built.push_back(std::move(c));
  }
}

// Candidates that put the same threads on the same CPUs here are run once, under the first
// name; the others are listed beside it and named in a note.
void keep_distinct(std::vector<Candidate> built, const std::vector<std::string>& command,
                   CandidateSet& set) {
  for (Candidate& c : built) {
    c.options.command = command;
    auto twin = std::find_if(set.list.begin(), set.list.end(),
                             [&](const Candidate& kept) { return same_effect(kept, c); });
    if (twin == set.list.end()) {
      set.list.push_back(std::move(c));
    } else if (twin->name != c.name) {
      twin->same_as.push_back(c.name);
    }
  }
  for (const Candidate& c : set.list)
    if (!c.same_as.empty()) {
      std::string names_text;
      for (const auto& s : c.same_as) names_text += (names_text.empty() ? "" : ", ") + s;
      set.notes.push_back(names_text + ": same CPUs in the same order as " + c.name +
                          " on this machine, run once as " + c.name);
    }
}

}  // namespace

Result<CandidateSet> make_candidates(const std::string& list, const Topology& topology,
                                     const std::vector<std::string>& command, bool thread_cache) {
  const bool multi_node = nodes_with_cpus(topology) > 1;
  CandidateSet set;
  const std::vector<std::string> names = candidate_names(list, multi_node, set.notes);
  const CpuSet all = topology.allowed_cpus();
  std::vector<Candidate> built;
  for (const std::string& name : names) {
    Result<Candidate> c = build_candidate(name, topology, all);
    if (!c) return c.error();
    if ((name == "mem-local" || name == "mem-interleave") && !multi_node) {
      set.notes.push_back(name + " skipped: one NUMA node with CPUs here");
      continue;
    }
    built.push_back(std::move(*c));
  }
  if (thread_cache) add_cache_copies(built);
  keep_distinct(std::move(built), command, set);
  return set;
}

std::string output_file_name(const std::string& candidate_name) {
  std::string out;
  for (char ch : candidate_name)
    out += std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '+' || ch == '.'
               ? ch
               : '_';
  return out + ".out";
}

std::string run_line(const Candidate& c) {
  std::vector<std::string> args = c.launcher;
  if (c.is_os()) {
    args.insert(args.end(), c.options.command.begin(), c.options.command.end());
  } else {
    args.push_back("threadmap");
    std::vector<std::string> run = apply::run_arguments(c.options);
    args.insert(args.end(), run.begin(), run.end());
  }
  return apply::shell_join(args);
}

}  // namespace threadmap::tune
