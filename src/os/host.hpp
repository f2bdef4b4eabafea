// Who this machine says it is: host name and kernel, for provenance lines in results.
#pragma once

#include <string>

namespace threadmap::os {

/// gethostname(); empty when it cannot be read.
std::string host_name();
/// "Linux 6.1.0-13-amd64" (uname sysname + release); empty when it cannot be read.
std::string kernel_release();

}  // namespace threadmap::os
