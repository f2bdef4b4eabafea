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

/// A descriptor the programs a command starts inherit: appending to a file they may no longer
/// reach by name (a process that switched user, changed its root or its mount namespace).
struct InheritedAppend {
  int fd = -1;
  unsigned long long inode = 0;  ///< the file's inode, so that a reader can tell it is this file
};

/// Opens PATH for appending, without close-on-exec (the started programs inherit it). Fails
/// naming the file.
Result<InheritedAppend> open_inherited_append(const std::string& path);

/// Closes what open_inherited_append opened (after the programs ended); -1 is nothing.
void close_inherited(int fd);

/// Removes a file (cleanup): a file already gone is no error, other errors are ignored.
void remove_file(const std::string& path);

}  // namespace threadmap::os
