// Private temporary files: a file only this user can read or write, made for one command and
// removed after it (the thread cache's statistics file of `run --stats`).
#pragma once

#include <string>

#include "threadmap/result.hpp"

namespace threadmap::os {

/// Creates an empty file PREFIX.XXXXXX (mode 0600, a fresh name: O_EXCL) in $TMPDIR when that
/// is an absolute path, else /tmp, and returns its absolute path. Fails naming the directory.
Result<std::string> create_private_temp_file(const std::string& prefix);

/// When this process runs as root, lets every user append to PATH (mode 0622: written, not read,
/// by others): the processes of a run that switch to another user (a daemon dropping root) can
/// then still write to it. A run as another user keeps 0600 (its processes cannot switch user).
void allow_appends_from_switched_users(const std::string& path);

/// Removes a file (cleanup): a file already gone is no error, other errors are ignored.
void remove_file(const std::string& path);

}  // namespace threadmap::os
