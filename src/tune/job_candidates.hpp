// The placements `threadmap tune --ranks auto` tries on a job: the launcher (mpirun, srun,
// mpiexec) runs the whole job once per candidate, and every rank applies the candidate inside
// its own share of the node, exactly as `threadmap run --ranks auto` does. What can vary per
// rank is what `run --ranks auto` takes: the order of the threads inside the share (the
// policy), a plan inside it, the memory policy, the thread cache. Placements that name CPUs of
// the whole machine (one-core, cpus:EXPR, ...) do not apply: a rank's CPUs are its share.
#pragma once

#include <string>
#include <vector>

#include "src/tune/candidates.hpp"
#include "threadmap/result.hpp"
#include "threadmap/topology.hpp"

namespace threadmap::tune {

/// `text` split into words as a POSIX shell splits them, without expanding anything: blanks
/// separate words, '...' is literal, "..." keeps blanks (\" \\ \$ \` escaped inside), a
/// backslash outside quotes escapes the next character. Fails with EINVAL on an unclosed quote
/// or when there is no word.
Result<std::vector<std::string>> split_words(const std::string& text);

/// Names a job's candidates may have, for the help text and the errors.
const std::vector<std::string>& job_candidate_names();

/// The candidates of `list` (comma-separated; empty = os, compact, scatter, plus mem-local and
/// mem-interleave when `topology` (this node) has more than one NUMA node with CPUs) for
/// `command` started by `launcher`. "os" is the launcher alone, always measured, first; the
/// others run each rank under `threadmap run --ranks auto`. Identical candidates cannot be
/// merged here (each rank's share is decided inside the job), so none are. Fails with EINVAL
/// naming the item for an unknown name or one that needs whole-machine CPUs, and with the
/// plan's error for an unreadable plan.
Result<CandidateSet> make_job_candidates(const std::string& list, const Topology& topology,
                                         const std::vector<std::string>& launcher,
                                         const std::vector<std::string>& command,
                                         bool thread_cache);

}  // namespace threadmap::tune
