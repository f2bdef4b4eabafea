// Where threadmap's own files are: the preload libraries and helper programs sit in one layout
// shared by the build tree and every install prefix (<prefix>/bin/threadmap, <prefix>/lib or
// lib64/libthreadmap-*.so), found from /proc/self/exe, with the configured install directories
// as the last resort.
#pragma once

#include <string>

#include "threadmap/result.hpp"

namespace threadmap::os {

/// Absolute path of the running executable (/proc/self/exe); empty when unreadable.
std::string self_executable();

/// Finds libthreadmap-NAME.so ("pin", "cache"): <bin>/../LIBDIR (the configured relative libdir,
/// e.g. lib/x86_64-linux-gnu), <bin>/../lib, <bin>/../lib64, <bin>, then the
/// configured install libdir. ENOENT naming every place looked at when it is in none.
Result<std::string> find_preload_library(const std::string& name);

/// Where an install puts libthreadmap-NAME.so (the configured libdir): the path a command meant
/// to be pasted should name, rather than a build tree's.
std::string installed_library_path(const std::string& name);

/// Whether the running threadmap is a build tree's (its directory's parent holds the
/// CMakeCache.txt of a CMake build), not an installed one.
bool running_from_build_tree();

/// Finds a helper program (e.g. "threadmap-spawn"): next to the running binary, then the
/// configured install bindir. ENOENT naming the places looked at.
Result<std::string> find_helper_program(const std::string& name);

}  // namespace threadmap::os
