// Encoding pinning rules into TM_PIN_CONFIG, the one variable libthreadmap-pin.so reads.
//
// The format (version 1) is documented in src/preload/pin/pin_config.h and docs/run-and-watch.md;
// this side writes it, the C side parses it strictly. Everything a user typed is validated here
// first, so a bad --plan or --skip is reported before the program starts.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "threadmap/cpuset.hpp"
#include "threadmap/result.hpp"

namespace threadmap::apply {

/// Name of the environment variable the pin library reads.
inline constexpr const char* kPinConfigVar = "TM_PIN_CONFIG";

/// A CPU set for a thread chosen by a glob over its name or its start routine's library.
struct PatternRule {
  std::string pattern;  ///< fnmatch-style glob ('*', '?', '[...]'); no ';' and not empty
  CpuSet cpus;
};

/// Everything the pin library can be told. Empty rules = pin nothing.
struct PinRules {
  std::optional<CpuSet> main_cpus;           ///< the main thread
  std::vector<std::optional<CpuSet>> slots;  ///< slot k = k-th unclaimed created thread
  std::vector<CpuSet> cycle;                 ///< slots past `slots` take cycle[k % n]
  std::vector<PatternRule> by_name;          ///< applied when a thread names itself
  std::vector<PatternRule> by_library;       ///< by the start routine's library
  std::vector<long> skip_indexes;            ///< creation indexes left unpinned
  std::vector<std::string> skip_names;       ///< name globs left unpinned
  std::vector<std::string> skip_libraries;   ///< library globs left unpinned
  bool inherit = false;                      ///< exec'd children keep the rules
  bool override_affinity = false;            ///< rules win over a create's own affinity attribute
  std::string memory;                        ///< mem= value (encode_memory_policy), "" = none
  std::optional<int> main_memory_node;       ///< main thread prefers this node (OS number)
  std::vector<int> slot_memory_nodes;        ///< slot k prefers node k (-1 = none)
  std::vector<std::pair<std::string, int>> name_memory_nodes;  ///< name glob -> preferred node
};

/// Checks the rules (non-empty sets, every CPU in `allowed`, patterns without ';' or control
/// characters, indexes in range, memory nodes in 0-1023) and encodes them. Fails with EINVAL naming
/// the bad rule.
Result<std::string> encode_pin_config(const PinRules& rules, const CpuSet& allowed);

}  // namespace threadmap::apply
