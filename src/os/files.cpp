#include "src/os/files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace threadmap::os {
namespace {

std::string shown(const std::string& path, const std::string& what = "") {
  return (what.empty() ? "" : what + " ") + (path == "-" ? "stdin" : "'" + path + "'");
}

Error read_error(const std::string& path, int e, const std::string& what = "") {
  return Error::from_errno(e, "cannot read " + shown(path, what) + ": " + std::strerror(e));
}

Error write_error(const std::string& path, int e) {
  const std::string target = path == "-" ? "stdout" : "'" + path + "'";
  return Error::from_errno(e, "cannot write " + target + ": " + std::strerror(e));
}

int write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return 0;
}

// Reads fd to EOF into out, failing with EFBIG past max_bytes.
int read_all(int fd, std::size_t max_bytes, std::string& out) {
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return 0;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) return EFBIG;
    out.append(buffer, static_cast<std::size_t>(n));
  }
}

std::string directory_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

Result<std::string> read_file(const std::string& path, std::size_t max_bytes,
                              const std::string& what) {
  if (path.empty()) return Error::invalid("empty " + (what.empty() ? "file" : what) + " file name");
  // O_NONBLOCK so that opening a named pipe nobody writes to does not hang; cleared below.
  int fd = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return read_error(path, errno, what);
  struct stat st {};
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    if (fd != STDIN_FILENO) ::close(fd);
    return read_error(path, EISDIR, what);
  }
  std::string text;
  if (fd != STDIN_FILENO && S_ISFIFO(st.st_mode)) {
    // A pipe with a writer (process substitution, <(generate)) is read like a file. With no
    // writer a non-blocking read sees end of file at once: say so instead of "empty file" or
    // waiting forever.
    char first[4096];
    ssize_t n;
    do n = ::read(fd, first, sizeof first);
    while (n < 0 && errno == EINTR);
    if (n == 0) {
      ::close(fd);
      return Error::from_errno(EPIPE, "cannot read " + shown(path, what) +
                                          ": it is a named pipe (FIFO) and nothing writes to it");
    }
    if (n > 0) text.append(first, static_cast<std::size_t>(n));
  }
  if (fd != STDIN_FILENO) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  int rc = read_all(fd, max_bytes, text);
  if (fd != STDIN_FILENO) ::close(fd);
  if (rc == EFBIG) {
    const std::string limit = max_bytes >= (1u << 20) ? std::to_string(max_bytes >> 20) + " MiB"
                                                      : std::to_string(max_bytes) + " bytes";
    return Error::from_errno(EFBIG,
                             "cannot read " + shown(path, what) + ": it is larger than " + limit);
  }
  if (rc != 0) return read_error(path, rc, what);
  return text;
}

Result<std::string> read_file_head(const std::string& path, std::size_t bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return read_error(path, errno);
  struct stat st {};
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return read_error(path, EISDIR);
  }
  std::string head(bytes, '\0');
  std::size_t got = 0;
  while (got < bytes) {
    ssize_t n = ::read(fd, head.data() + got, bytes - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return read_error(path, e);
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  head.resize(got);
  return head;
}

Status check_writable(const std::string& path) {
  if (path == "-") return {};
  if (path.empty()) return Error::invalid("empty output file name");
  if (is_directory(path)) return write_error(path, EISDIR);
  const std::string dir = directory_of(path);
  if (!is_directory(dir))
    return Error::from_errno(ENOENT,
                             "cannot write '" + path + "': directory '" + dir + "' does not exist");
  if (access(dir.c_str(), W_OK) != 0) return write_error(path, errno);
  // A device is written in place: one that refuses every write (/dev/full) says so now, to a
  // write of nothing, before the command spends its time.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode)) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return write_error(path, errno);
    const int rc = ::write(fd, "", 0) < 0 ? errno : 0;
    ::close(fd);
    if (rc != 0) return write_error(path, rc);
  }
  return {};
}

Status write_file(const std::string& path, const std::string& text) {
  if (path == "-") {
    if (int rc = write_stdout(text); rc != 0) return write_error(path, rc);
    return {};
  }
  if (is_directory(path)) return write_error(path, EISDIR);
  // A character device (/dev/null, /dev/stdout) cannot be renamed over: write it in place.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_TRUNC);
    if (fd < 0) return write_error(path, errno);
    int rc = write_all(fd, text.data(), text.size());
    if (::close(fd) != 0 && rc == 0) rc = errno;
    if (rc != 0) return write_error(path, rc);
    return {};
  }
  auto staged = stage_file(path, text);
  if (!staged) return staged.error();
  return commit_staged(*staged);
}

Result<StagedFile> stage_file(const std::string& path, const std::string& text) {
  if (is_directory(path)) return write_error(path, EISDIR);
  std::string temp = path + ".tmp-XXXXXX";
  int fd = mkstemp(temp.data());
  if (fd < 0) return write_error(path, errno);
  int rc = write_all(fd, text.data(), text.size());
  // mkstemp creates 0600; the final file gets what a plain create would (0666 & ~umask).
  mode_t mask = umask(0);
  umask(mask);
  if (rc == 0 && fchmod(fd, 0666 & ~mask) != 0) rc = errno;
  if (::close(fd) != 0 && rc == 0) rc = errno;
  if (rc != 0) {
    ::unlink(temp.c_str());
    return write_error(path, rc);
  }
  return StagedFile{temp, path};
}

Status commit_staged(const StagedFile& staged) {
  if (::rename(staged.temp_path.c_str(), staged.path.c_str()) != 0) {
    int e = errno;
    ::unlink(staged.temp_path.c_str());
    return write_error(staged.path, e);
  }
  return {};
}

void discard_staged(const StagedFile& staged) { ::unlink(staged.temp_path.c_str()); }

Status create_directory(const std::string& path, bool* created) {
  if (created) *created = false;
  if (::mkdir(path.c_str(), 0777) == 0) {
    if (created) *created = true;
    return {};
  }
  int e = errno;
  if (e == EEXIST && is_directory(path)) return {};
  if (e == EEXIST) e = ENOTDIR;
  return Error::from_errno(e, "cannot create directory '" + path + "': " + std::strerror(e));
}

void remove_empty_directory(const std::string& path) { ::rmdir(path.c_str()); }

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_special_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

int write_stdout(const std::string& text) {
  return write_all(STDOUT_FILENO, text.data(), text.size());
}
int write_stderr(const std::string& text) {
  return write_all(STDERR_FILENO, text.data(), text.size());
}
bool stdout_is_terminal() { return isatty(STDOUT_FILENO) == 1; }
bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

Result<std::vector<std::string>> list_directory(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (!dir)
    return Error::from_errno(errno, "cannot list directory " + path + ": " + std::strerror(errno));
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  const int err = errno;
  ::closedir(dir);
  if (err != 0)
    return Error::from_errno(err, "cannot list directory " + path + ": " + std::strerror(err));
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace threadmap::os
