// What the kernel will run for a command: an ELF program that asks for the dynamic loader
// (PT_INTERP: LD_PRELOAD libraries load into it), one that does not (plain Go, static C,
// static-pie: no preload can load), a script (its #! interpreter runs), or neither. The reader
// finds the command as execvp would; the parsers are pure, for tests on crafted bytes.
#pragma once

#include <string>
#include <string_view>

#include "threadmap/result.hpp"

namespace threadmap::os {

/// How an executable is loaded.
enum class LoaderKind {
  dynamic,     ///< ELF with PT_INTERP: ld.so runs first and honours LD_PRELOAD
  static_elf,  ///< ELF without PT_INTERP: runs without ld.so, LD_PRELOAD never loads
  script,      ///< "#!" text: the interpreter runs (see Executable::interpreter)
  unknown,     ///< not ELF or script, or a header cut short (the kernel may still run it)
};

/// What an ELF header (or a script's first line) says. `head` is the file's first bytes; the
/// program header table must lie inside it (else unknown). For a script, `interpreter` is the
/// #! path (first word after "#!").
struct LoaderFacts {
  LoaderKind kind = LoaderKind::unknown;
  std::string interpreter;  ///< PT_INTERP's path (dynamic) or the #! path (script)
  std::string why;          ///< for unknown: what was wrong ("not ELF", "header cut short")
};
LoaderFacts loader_facts(std::string_view head);

/// The command after following a script's #! to its interpreter (one level, as most scripts).
struct Executable {
  std::string path;  ///< the file found (PATH searched when `command` has no '/')
  LoaderKind kind = LoaderKind::unknown;  ///< of the file itself
  std::string interpreter;                ///< script: its interpreter's path
  /// script: the interpreter's kind (what really runs first); else the same as `kind`.
  LoaderKind runs_as = LoaderKind::unknown;
};

/// Finds `command` as execvp does (a name without '/' is searched in PATH, or "/bin:/usr/bin"
/// when PATH is unset) and reads its loader facts. ENOENT when it is not found or not
/// executable (the launcher reports that itself).
Result<Executable> find_executable(const std::string& command);

}  // namespace threadmap::os
