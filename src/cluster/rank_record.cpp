#include "src/cluster/rank_record.hpp"

#include <cctype>

namespace threadmap::cluster {

std::string record_file_name(const std::string& host, int rank) {
  std::string safe;
  for (char c : host) {
    const bool keep =
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    safe.push_back(keep ? c : '_');
  }
  if (safe.empty() || safe == "." || safe == "..") safe = "_" + safe;
  return safe + "." + std::to_string(rank) + ".json";
}

const char* share_source_name(ShareSource source) {
  switch (source) {
    case ShareSource::split:
      return "split";
    case ShareSource::launcher:
      return "launcher";
    case ShareSource::explicit_:
      return "explicit";
  }
  return "split";
}

}  // namespace threadmap::cluster
