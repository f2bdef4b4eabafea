// Files as users name them: "-" is stdin when reading and stdout when writing; reads are
// bounded (so /dev/zero or a runaway pipe cannot grow us to gigabytes); writes land whole or not
// at all (temporary name in the same directory, then rename). Every failure names the path and
// the kernel's reason ("cannot read 'x.json': Permission denied").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "threadmap/result.hpp"

namespace threadmap::os {

/// Files larger than this are refused by readers that take no explicit limit: 256 MiB is far
/// above any topology, matrix, spec or plan we read (a 4096-CPU matrix is ~100 MiB as CSV).
inline constexpr std::size_t kDefaultReadLimit = std::size_t{256} << 20;

/// Reads all of `path` ("-" = stdin). Regular files, pipes and character devices are read up to
/// `max_bytes`; more is EFBIG ("it is larger than N MiB"). A directory is EISDIR. Messages read
/// "cannot read WHAT 'PATH': why", `what` naming the kind of file ("spec", "plan") when given.
Result<std::string> read_file(const std::string& path, std::size_t max_bytes = kDefaultReadLimit,
                              const std::string& what = "");
/// Reads at most the first `bytes` bytes of `path` (not "-"): for sniffing a file's format.
Result<std::string> read_file_head(const std::string& path, std::size_t bytes);

/// Writes `text` to `path` ("-" = stdout) whole or not at all: a file is written under a
/// temporary name in its directory, flushed and renamed over `path`; on failure nothing is left
/// behind. A write error on stdout (EPIPE, ENOSPC on /dev/full) is an error too.
Status write_file(const std::string& path, const std::string& text);
/// A file written under a temporary name in its target's directory, waiting to be renamed
/// into place: several outputs are staged first and committed together, so a command that fails
/// half-way leaves none of them.
struct StagedFile {
  std::string temp_path;
  std::string path;
};
/// Writes `text` to a temporary file next to `path` (same mode a plain create would give).
/// Fails naming `path`; nothing is left behind then.
Result<StagedFile> stage_file(const std::string& path, const std::string& text);
/// Renames a staged file into place. Fails naming the path (the temporary file is removed).
Status commit_staged(const StagedFile& staged);
/// Removes a staged file that will not be committed.
void discard_staged(const StagedFile& staged);

/// Checks, before any work, that write_file(path) can succeed as far as can be known: "-", or a
/// path that is not a directory in an existing, writable directory.
Status check_writable(const std::string& path);

/// Creates directory `path` (mode 0777 & ~umask). Succeeds when it already is a directory.
/// `created` (optional) says whether this call made it.
Status create_directory(const std::string& path, bool* created = nullptr);
/// Removes an empty directory (cleanup after a failed command); errors are ignored.
void remove_empty_directory(const std::string& path);
/// True when `path` names an existing directory.
bool is_directory(const std::string& path);
/// Names of the entries of directory `path` (no "." or ".."), sorted. Fails naming the path
/// (ENOENT, ENOTDIR, EACCES).
Result<std::vector<std::string>> list_directory(const std::string& path);
/// True when `path` names an existing regular file.
bool is_regular_file(const std::string& path);
/// True when `path` names an existing file that is neither regular nor a directory (a device
/// such as /dev/null, a FIFO, a socket).
bool is_special_file(const std::string& path);

/// Writes `text` to stdout / stderr unbuffered (write(2), EINTR retried). 0 or the errno.
int write_stdout(const std::string& text);
int write_stderr(const std::string& text);
/// True when stdout / stderr is a terminal.
bool stdout_is_terminal();
bool stderr_is_terminal();

}  // namespace threadmap::os
