// What the candidate tests share: a recorded topology by file name, and a candidate set's
// names or one candidate by name.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/tune/candidates.hpp"
#include "threadmap/topology.hpp"

namespace tm_test {

inline threadmap::Topology load(const std::string& name) {
  auto t = threadmap::Topology::load_xml(std::string(THREADMAP_TEST_DATA) + "/topologies/" + name);
  EXPECT_TRUE(t) << name;
  return *t;
}

inline std::vector<std::string> names(const threadmap::tune::CandidateSet& s) {
  std::vector<std::string> out;
  for (const auto& c : s.list) out.push_back(c.name);
  return out;
}

inline const threadmap::tune::Candidate* find(const threadmap::tune::CandidateSet& s,
                                              const std::string& name) {
  for (const auto& c : s.list)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace tm_test
