// `report --out DIR/%h`: the host-name pattern. (The report reader is report_reader.cpp.)
#include "src/fleet/host_record.hpp"

namespace threadmap::fleet {

Result<std::string> expand_host_pattern(const std::string& pattern, const std::string& host) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      out.push_back(pattern[i]);
      continue;
    }
    if (i + 1 < pattern.size() && pattern[i + 1] == 'h') {
      if (host.empty() || host.find('/') != std::string::npos || host == "." || host == "..")
        return Error::invalid("'%h' in '" + pattern + "': this host's name '" + host +
                              "' cannot name a directory");
      out += host;
    } else if (i + 1 < pattern.size() && pattern[i + 1] == '%') {
      out.push_back('%');
    } else {
      return Error::invalid("'" + pattern + "': only %h (host name) and %% may follow '%'");
    }
    ++i;
  }
  return out;
}

}  // namespace threadmap::fleet
