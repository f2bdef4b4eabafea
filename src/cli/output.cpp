// Output helpers shared by the subcommands: the one-line error format, stdout, file writing.
// Everything goes through src/os, which writes whole files or nothing.
#include <cstring>

#include "src/cli/command.hpp"
#include "src/os/files.hpp"

namespace threadmap::cli {
namespace {

int g_stdout_error = 0;  // first errno of a failed write to stdout (EPIPE, ENOSPC on /dev/full)

}  // namespace

int fail(const Error& error) { return fail(error.message); }

int fail(const std::string& message) {
  os::write_stderr("threadmap: " + message + "\n");
  return 1;
}

int usage_error(const Error& error) { return usage_error(error.message); }

int usage_error(const std::string& message) {
  fail(message);
  return 2;
}

void print(const std::string& text) {
  if (int e = os::write_stdout(text); e != 0 && g_stdout_error == 0) g_stdout_error = e;
}

int finish(int status) {
  if (g_stdout_error == 0) return status;
  fail(std::string("cannot write to stdout: ") + std::strerror(g_stdout_error));
  return status != 0 ? status : 1;
}

Status write_file(const std::string& path, const std::string& text) {
  if (path == "-") {
    print(text);
    return {};
  }
  return os::write_file(path, text);
}

bool stdout_is_tty() { return os::stdout_is_terminal(); }
bool stderr_is_tty() { return os::stderr_is_terminal(); }

}  // namespace threadmap::cli
