#include "src/os/install_layout.hpp"

#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <vector>

#include "src/os/files.hpp"

namespace threadmap::os {
namespace {

Result<std::string> first_existing(const std::string& file,
                                   const std::vector<std::filesystem::path>& candidates) {
  std::string looked;
  for (const auto& c : candidates) {
    if (is_regular_file(c.string()))
      return std::filesystem::absolute(c).lexically_normal().string();
    looked += (looked.empty() ? "" : ", ") + c.lexically_normal().string();
  }
  return Error::from_errno(ENOENT, "cannot find " + file + " (looked in " + looked + ")");
}

}  // namespace

std::string self_executable() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.string();
}

Result<std::string> find_preload_library(const std::string& name) {
  const std::string file = "libthreadmap-" + name + ".so";
  std::vector<std::filesystem::path> candidates;
  if (std::string exe = self_executable(); !exe.empty()) {
    auto bin = std::filesystem::path(exe).parent_path();
    // The configured libdir first (lib/x86_64-linux-gnu in a Debian package), relative to the
    // binary's prefix, so an unpacked or moved package finds its own preload libraries.
    candidates.push_back(bin.parent_path() / THREADMAP_INSTALL_LIBDIR_RELATIVE / file);
    candidates.push_back(bin.parent_path() / "lib" / file);
    candidates.push_back(bin.parent_path() / "lib64" / file);
    candidates.push_back(bin / file);
  }
  candidates.push_back(std::filesystem::path(THREADMAP_INSTALL_LIBDIR) / file);
  return first_existing(file, candidates);
}

std::string installed_library_path(const std::string& name) {
  return (std::filesystem::path(THREADMAP_INSTALL_LIBDIR) / ("libthreadmap-" + name + ".so"))
      .string();
}

bool running_from_build_tree() {
  const std::string exe = self_executable();
  if (exe.empty()) return false;
  return is_regular_file(
      (std::filesystem::path(exe).parent_path().parent_path() / "CMakeCache.txt").string());
}

Result<std::string> find_helper_program(const std::string& name) {
  std::vector<std::filesystem::path> candidates;
  if (std::string exe = self_executable(); !exe.empty())
    candidates.push_back(std::filesystem::path(exe).parent_path() / name);
  candidates.push_back(std::filesystem::path(THREADMAP_INSTALL_BINDIR) / name);
  return first_existing(name, candidates);
}

}  // namespace threadmap::os
