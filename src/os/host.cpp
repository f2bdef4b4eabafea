#include "src/os/host.hpp"

#include <sys/utsname.h>
#include <unistd.h>

namespace threadmap::os {

std::string host_name() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return {};
  return host;
}

std::string kernel_release() {
  utsname uts{};
  if (uname(&uts) != 0) return {};
  return std::string(uts.sysname) + " " + uts.release;
}

}  // namespace threadmap::os
