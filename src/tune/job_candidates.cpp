#include "src/tune/job_candidates.hpp"

#include <algorithm>

#include "src/core/text.hpp"
#include "src/plan/plan_file.hpp"

namespace threadmap::tune {
Result<std::vector<std::string>> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == ' ' || ch == '\t' || ch == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (ch == '\\') {
      if (i + 1 < text.size()) word += text[++i];
    } else if (ch == '\'') {
      const std::size_t end = text.find('\'', i + 1);
      if (end == std::string::npos)
        return Error::invalid("unclosed ' in '" + text + "' (words are split as a shell would)");
      word += text.substr(i + 1, end - i - 1);
      i = end;
    } else if (ch == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() &&
            std::string("\"\\$`").find(text[j + 1]) != std::string::npos)
          ++j;
        word += text[j];
      }
      if (j >= text.size())
        return Error::invalid("unclosed \" in '" + text + "' (words are split as a shell would)");
      i = j;
    } else {
      word += ch;
    }
  }
  if (in_word) words.push_back(word);
  if (words.empty()) return Error::invalid("no launcher command in '" + text + "'");
  return words;
}

const std::vector<std::string>& job_candidate_names() {
  static const std::vector<std::string> names = {"os",          "compact",   "scatter",
                                                 "round-robin", "mem-local", "mem-interleave",
                                                 "cache",       "plan:FILE"};
  return names;
}

namespace {

// Each candidate again with the thread cache ("NAME+cache"). The launcher alone loads no
// cache; with the cache, a rank runs under threadmap run, which places its threads (that twin
// is "cache").
void add_cache_twins(std::vector<Candidate>& built) {
  const std::size_t n = built.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (built[i].options.thread_cache || built[i].is_os()) continue;
    Candidate c = built[i];
    c.name += "+cache";
    c.meaning += ", with the thread cache";
    c.options.thread_cache = true;
    built.push_back(std::move(c));
  }
}

}  // namespace

Result<CandidateSet> make_job_candidates(const std::string& list, const Topology& topology,
                                         const std::vector<std::string>& launcher,
                                         const std::vector<std::string>& command,
                                         bool thread_cache) {
  std::vector<std::string> names = split_names(list);
  const bool nodes = nodes_with_cpus(topology) > 1;
  if (names.empty()) {
    names = {"os", "compact", "scatter"};
    if (nodes) names.insert(names.end(), {"mem-local", "mem-interleave"});
  }
  CandidateSet set;
  auto os_at = std::find(names.begin(), names.end(), kOsCandidate);
  if (os_at == names.end())
    set.notes.push_back("os added: every candidate is judged against the launcher alone");
  else
    names.erase(os_at);
  names.insert(names.begin(), kOsCandidate);
  set.notes.push_back(
      "each candidate runs the whole job; every rank takes its share of its node and places its "
      "threads inside it (threadmap run --ranks auto); os is the launcher alone");
  std::vector<Candidate> built;
  for (const std::string& name : names) {
    if (std::find_if(built.begin(), built.end(),
                     [&](const Candidate& c) { return c.name == name; }) != built.end())
      continue;
    Candidate c;
    c.name = name;
    if (name == kOsCandidate) {
      c.kind = Candidate::Kind::os;
      c.meaning = "the launcher alone: its own binding (if any), the OS inside it";
    } else if (name == "compact" || name == "scatter" || name == "round-robin") {
      c.options.policy = name;
      c.meaning = "each rank's threads " + name + " inside the rank's share";
    } else if (name == "mem-local" || name == "mem-interleave") {
      if (!nodes) {
        set.notes.push_back(name + " skipped: one NUMA node with CPUs here");
        continue;
      }
      c.options.memory = name == "mem-local" ? "local" : "interleave";
      c.meaning = "each rank's threads compact in its share, memory policy " + c.options.memory;
    } else if (name == "cache") {
      c.options.thread_cache = true;
      c.meaning = "each rank's threads compact in its share, with the thread cache";
    } else if (name.rfind("plan:", 0) == 0 && name.size() > 5) {
      auto plan = plan::read_plan_file(name.substr(5));
      if (!plan) return candidate_plan_error(plan.error(), name);
      c.options.plan_path = name.substr(5);
      c.meaning = "the plan " + c.options.plan_path + " in every rank (its CPUs inside the share)";
    } else {
      const auto& whole = builtin_candidate_names();
      if (std::find(whole.begin(), whole.end(), name) != whole.end() || name.rfind("cpus:", 0) == 0)
        return Error::bad_input("candidates",
                                "candidate '" + name +
                                    "' names CPUs of the whole machine; in a job a rank's "
                                    "CPUs are its share (candidates for a job: " +
                                    joined(job_candidate_names()) + ")");
      return Error::bad_input(
          "candidates", "unknown candidate '" + name +
                            "' (candidates for a job: " + joined(job_candidate_names()) + ")");
    }
    built.push_back(std::move(c));
  }
  if (thread_cache) add_cache_twins(built);
  for (Candidate& c : built) {
    c.options.command = command;
    c.launcher = launcher;
    // Inside a job the rank's share is the CPU list; the policy orders threads inside it.
    if (!c.is_os()) c.options.ranks = "auto";
    if (!c.is_os() && c.options.plan_path.empty() && !c.options.policy)
      c.options.policy = "compact";
    set.list.push_back(std::move(c));
  }
  return set;
}

}  // namespace threadmap::tune
