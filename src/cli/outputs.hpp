// The files a command writes, as one unit (docs/architecture.md, "whole or absent"): declared
// with their flags, checked before any work (a typo in --png must not throw away minutes of
// measurement), and written together at the end -- every file staged under a temporary name
// first and renamed into place only when all were staged, so a command that fails leaves none of
// them. "-" is stdout, written last; at most one output may go there.
#pragma once

#include <string>
#include <vector>

#include "src/cli/command.hpp"
#include "threadmap/result.hpp"

namespace threadmap::cli {

class Outputs {
 public:
  /// Declares output `flag` whose path CLI11 stores in `*path` (empty = not asked for). The
  /// pointer must outlive this object (both live in the command's options).
  void declare(const std::string& flag, const std::string* path);
  /// Declares the output whose path is the member at `path`, named by its flag in `flags` (the
  /// flag as declared, not typed again).
  void declare(const FlagTable& flags, const std::string* path) {
    declare(flags.flag_for(path), path);
  }

  /// Before any work: each given path is "-" or a file that can be created in an existing,
  /// writable directory; no two outputs name the same file; at most one is "-". Fails with the
  /// flag in the message: two outputs that conflict are Fault::input (exit 2), a path the
  /// filesystem refuses the work's fault (exit 1).
  Status check() const;

  /// True when the output whose path lives in `*path` was asked for.
  bool wanted(const std::string* path) const { return path && !path->empty(); }

  /// Sets the content of an output (ignored when it was not asked for).
  void set(const std::string* path, std::string content);

  /// Writes every output that was set: files staged then renamed into place together, stdout
  /// last. On failure nothing new is left in place (files already renamed are rare: only when a
  /// rename fails after an earlier one succeeded).
  Status commit();

 private:
  struct Entry {
    std::string flag;
    const std::string* path = nullptr;
    std::string content;
    bool set = false;
  };
  std::vector<Entry> entries_;
};

}  // namespace threadmap::cli
