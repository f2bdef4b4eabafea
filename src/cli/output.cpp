// Output helpers shared by the subcommands: the one-line error format and file writing.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "src/cli/command.hpp"

namespace threadmap::cli {

int fail(const Error& error) { return fail(error.message); }

int fail(const std::string& message) {
  std::fprintf(stderr, "threadmap: %s\n", message.c_str());
  return 1;
}

void print(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

Status write_file(const std::string& path, const std::string& text) {
  if (path == "-") {
    print(text);
    return {};
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Error::from_errno(errno, "cannot write '" + path + "': " + std::strerror(errno));
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) return Error::from_errno(EIO, "cannot write '" + path + "'");
  return {};
}

bool stdout_is_tty() { return isatty(STDOUT_FILENO) == 1; }
bool stderr_is_tty() { return isatty(STDERR_FILENO) == 1; }

}  // namespace threadmap::cli
