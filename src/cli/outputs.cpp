#include "src/cli/outputs.hpp"

#include "src/cli/command.hpp"
#include "src/os/files.hpp"

namespace threadmap::cli {
namespace {

// "-" and devices (/dev/null, /dev/stdout) are written in place: they cannot be renamed over.
bool written_in_place(const std::string& path) { return path == "-" || os::is_special_file(path); }

}  // namespace

void Outputs::declare(const std::string& flag, const std::string* path) {
  entries_.push_back(Entry{as_typed(flag), path, {}, false});
}

Status Outputs::check() const {
  const Entry* to_stdout = nullptr;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    if (!wanted(e.path)) continue;
    if (*e.path == "-") {
      if (to_stdout)
        return Error::bad_input(
            "", to_stdout->flag + " and " + e.flag + " cannot both write to stdout ('-')");
      to_stdout = &e;
      continue;
    }
    for (std::size_t j = 0; j < i; ++j)
      if (wanted(entries_[j].path) && *entries_[j].path == *e.path)
        return Error::bad_input(
            "", entries_[j].flag + " and " + e.flag + " name the same file '" + *e.path + "'");
    if (auto st = os::check_writable(*e.path); !st) return st.error().with_context("bad " + e.flag);
  }
  return {};
}

void Outputs::set(const std::string* path, std::string content) {
  for (Entry& e : entries_)
    if (e.path == path && wanted(path)) {
      e.content = std::move(content);
      e.set = true;
    }
}

Status Outputs::commit() {
  std::vector<os::StagedFile> staged;
  auto discard_all = [&] {
    for (const auto& s : staged) os::discard_staged(s);
  };
  for (const Entry& e : entries_) {
    if (!e.set || written_in_place(*e.path)) continue;
    auto s = os::stage_file(*e.path, e.content);
    if (!s) {
      discard_all();
      return s.error();
    }
    staged.push_back(*s);
  }
  for (std::size_t i = 0; i < staged.size(); ++i)
    if (auto st = os::commit_staged(staged[i]); !st) {
      for (std::size_t j = i + 1; j < staged.size(); ++j) os::discard_staged(staged[j]);
      return st;
    }
  for (const Entry& e : entries_) {
    if (!e.set || !written_in_place(*e.path)) continue;
    if (*e.path == "-") {
      print(e.content);
    } else if (auto st = os::write_file(*e.path, e.content); !st) {
      return st;
    }
  }
  return {};
}

}  // namespace threadmap::cli
