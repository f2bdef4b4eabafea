// What a program file is, read without running it: where PATH finds a command, and which
// shared libraries an ELF executable names as its direct dependencies (DT_NEEDED). tune uses
// them to print only the reproduce lines that apply (the OpenMP variables only for a program
// that links an OpenMP runtime, numactl and srun only where installed).
#pragma once

#include <string>
#include <vector>

#include "threadmap/result.hpp"

namespace threadmap::os {

/// The path PATH gives `name` as execvp would find it (a name with a '/' is itself), when that
/// file exists and is executable; "" otherwise.
std::string find_program(const std::string& name);

/// The DT_NEEDED entries of the ELF file at `path` ("libgomp.so.1", "libc.so.6"), in file
/// order; empty for a static executable. Fails with ENOEXEC when the file is not a
/// little-endian ELF (a script), EIO when its dynamic section is cut short, and with the
/// open/read error otherwise.
Result<std::vector<std::string>> elf_needed_libraries(const std::string& path);

}  // namespace threadmap::os
