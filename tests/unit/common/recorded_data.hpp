// The recorded real machines in tests/data (see its README): every unit test area that checks a
// rule "on every recorded machine" lists them here, so a file added there is tested everywhere.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace threadmap::test_data {

/// Paths of the files with extension `ext` in tests/data/`folder`, sorted.
inline std::vector<std::string> files(const std::string& folder, const std::string& ext) {
  std::vector<std::string> out;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(THREADMAP_TEST_DATA) + "/" + folder))
    if (e.path().extension() == ext) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// The recorded hwloc XML topologies.
inline std::vector<std::string> topology_files() { return files("topologies", ".xml"); }
/// The recorded latency matrices.
inline std::vector<std::string> matrix_files() { return files("latency", ".csv"); }

}  // namespace threadmap::test_data
