// The placements `threadmap tune` tries: each one is `threadmap run` options as given (so tune
// launches exactly what the user would launch by hand: apply::run_request checks them and
// apply::prepare_command builds the launch, and apply::run_arguments prints them), with the CPU
// order its threads take. Candidates that come out identical on this machine (on a 2-CPU VM
// compact, scatter, one core per thread, one L3 and one NUMA node are all "CPUs 0,1 in that order")
// are run once under the first name, and the others are named in a note.
#pragma once

#include <string>
#include <vector>

#include "src/apply/run_options.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::tune {

/// The name of the candidate every verdict is against.
inline constexpr const char* kOsCandidate = "os";

/// One placement to try.
struct Candidate {
  /// The OS placement (the program, or the launcher, alone: nothing applied, every verdict is
  /// against it), or a placement that applies something.
  enum class Kind { os, placement };
  Kind kind = Kind::placement;
  std::string name;                  ///< "os", "compact", "one-core", "plan:F", "cpus:E", "+cache"
  std::string meaning;               ///< one line: what it does on this machine
  apply::RunOptions options;         ///< `threadmap run` as given (command included)
  std::vector<int> order;            ///< CPUs in the order threads take them; empty: the OS places
  std::vector<std::string> same_as;  ///< names dropped because they were identical here
  /// Not empty: a job. The launcher ("mpirun -np 4") starts every rank, each under
  /// `threadmap run --ranks auto` with this candidate's options ("os": the launcher alone).
  std::vector<std::string> launcher;

  bool is_os() const { return kind == Kind::os; }
  /// Whether it places threads on CPUs: a CPU order, a plan, or (a job's candidate) a policy
  /// inside each rank's share.
  bool pins() const;
  /// How many things it applies: pinning, a memory policy, the thread cache (0 for os).
  int parts() const;
  /// Whether it applies a strict subset of what `other` applies, each part the same as there
  /// (os+cache is simpler than one-core+cache; compact is not simpler than one-core).
  bool simpler_than(const Candidate& other) const;
};

/// The candidates and what was decided about the list.
struct CandidateSet {
  std::vector<Candidate> list;     ///< "os" first, always (every verdict is against it)
  std::vector<std::string> notes;  ///< "scatter, one-l3: same CPUs in the same order as compact"
};

/// `text` split at commas, blanks around each item dropped, empty items skipped ("os, compact").
std::vector<std::string> split_names(const std::string& text);

/// The error of candidate `name`'s plan file, about `candidates`: a file that is not a plan
/// (EINVAL) is Fault::input, one that cannot be read the work's (tune(1)'s exit statuses).
Error candidate_plan_error(const Error& error, const std::string& name);

/// How many NUMA nodes of `topology` hold allowed CPUs (the memory candidates need two).
int nodes_with_cpus(const Topology& topology);

/// Names `threadmap tune` knows, for the help text and the unknown-name error.
const std::vector<std::string>& builtin_candidate_names();

/// Builds the candidates of `list` (comma-separated names; empty = the default set: os,
/// compact, scatter, core-per-thread, one-core, one-l3, one-node, plus mem-local and
/// mem-interleave on machines with more than one NUMA node with CPUs) for `command` on
/// `topology`. "plan:FILE" and "cpus:EXPR" add those; "cache" adds the OS placement with the
/// thread cache; `thread_cache` adds every candidate again with the cache ("NAME+cache").
/// Fails with Fault::input about `candidates` naming the item for an unknown name or a CPU
/// expression that does not resolve, and with the plan's error (about `candidates`, the work's
/// fault) for an unreadable plan.
Result<CandidateSet> make_candidates(const std::string& list, const Topology& topology,
                                     const std::vector<std::string>& command, bool thread_cache);

/// The line that applies `candidate` (shell-quoted): `threadmap` + apply::run_arguments of its
/// options, preceded by the launcher for a job; for "os" the command alone (after the
/// launcher).
std::string run_line(const Candidate& candidate);

/// A file name for a candidate's output: its name with every character other than letters,
/// digits, '-', '+' and '.' replaced by '_', then ".out" ("plan:/a/b.json" ->
/// "plan__a_b.json.out").
std::string output_file_name(const std::string& candidate_name);

}  // namespace threadmap::tune
