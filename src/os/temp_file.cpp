#include "src/os/temp_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace threadmap::os {

Result<std::string> create_private_temp_file(const std::string& prefix) {
  // A relative TMPDIR would name another file for a program that changes directory.
  const char* tmpdir = std::getenv("TMPDIR");
  std::string dir = tmpdir && tmpdir[0] == '/' ? tmpdir : "/tmp";
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  std::string path = (dir == "/" ? "" : dir) + "/" + prefix + ".XXXXXX";
  // mkstemp: O_CREAT | O_EXCL, mode 0600. The descriptor is not needed: the file is handed on
  // by name, and it is not inherited (closed here, before anything starts).
  int fd = mkstemp(path.data());
  if (fd < 0) {
    int e = errno;
    return Error::from_errno(
        e, "cannot create a temporary file in '" + dir + "': " + std::strerror(e));
  }
  ::close(fd);
  return path;
}

void allow_appends_from_switched_users(const std::string& path) {
  if (::geteuid() == 0) ::chmod(path.c_str(), 0622);
}

Result<InheritedAppend> open_inherited_append(const std::string& path) {
  // No O_CLOEXEC: the point is that the started programs get it.
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);  // NOLINT(android-cloexec-open)
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    int e = errno;
    if (fd >= 0) ::close(fd);
    return Error::from_errno(e, "cannot open '" + path + "' for appending: " + std::strerror(e));
  }
  return InheritedAppend{fd, static_cast<unsigned long long>(st.st_ino)};
}

void close_inherited(int fd) {
  if (fd >= 0) ::close(fd);
}

void remove_file(const std::string& path) { ::unlink(path.c_str()); }

}  // namespace threadmap::os
