// ELF program headers and #! lines, read as the kernel's binfmt_elf and binfmt_script do
// (only what decides whether ld.so runs).
#include "src/os/executable_kind.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "src/os/files.hpp"

namespace threadmap::os {
namespace {

constexpr std::size_t kHeadBytes = 64 * 1024;  // far past any real program header table
constexpr std::uint32_t kPtInterp = 3;

// Little- or big-endian unsigned of `bytes` bytes at `at` (caller checked the bounds).
std::uint64_t read_uint(std::string_view s, std::size_t at, std::size_t bytes, bool big) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < bytes; ++i) {
    const auto byte = static_cast<unsigned char>(s[at + (big ? i : bytes - 1 - i)]);
    v = (v << 8) | byte;
  }
  return v;
}

LoaderFacts unknown(std::string why) {
  LoaderFacts f;
  f.why = std::move(why);
  return f;
}

LoaderFacts script_facts(std::string_view head) {
  std::size_t end = head.find('\n');
  std::string_view line = head.substr(2, end == std::string_view::npos ? head.size() - 2 : end - 2);
  std::size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos) return unknown("a #! line without an interpreter");
  line.remove_prefix(start);
  LoaderFacts f;
  f.kind = LoaderKind::script;
  f.interpreter = std::string(line.substr(0, line.find_first_of(" \t\r")));
  return f;
}

}  // namespace

LoaderFacts loader_facts(std::string_view head) {
  if (head.size() >= 2 && head[0] == '#' && head[1] == '!') return script_facts(head);
  if (head.size() < 16 || head.substr(0, 4) !=
                              "\x7f"
                              "ELF")
    return unknown("not an ELF file");
  const bool is64 = head[4] == 2;
  const bool big = head[5] == 2;
  if ((head[4] != 1 && head[4] != 2) || (head[5] != 1 && head[5] != 2))
    return unknown("an ELF header of unknown class or byte order");
  const std::size_t ehsize = is64 ? 64 : 52;
  if (head.size() < ehsize) return unknown("an ELF header cut short");
  const std::uint64_t phoff = is64 ? read_uint(head, 32, 8, big) : read_uint(head, 28, 4, big);
  const std::uint64_t phentsize = read_uint(head, is64 ? 54 : 42, 2, big);
  const std::uint64_t phnum = read_uint(head, is64 ? 56 : 44, 2, big);
  const std::size_t min_entry = is64 ? 56 : 32;
  if (phnum == 0) return {LoaderKind::static_elf, "", ""};
  if (phentsize < min_entry || phoff > head.size() || phnum > (head.size() - phoff) / phentsize)
    return unknown("program headers outside the first " + std::to_string(head.size()) + " bytes");
  for (std::uint64_t i = 0; i < phnum; ++i) {
    const std::size_t at = static_cast<std::size_t>(phoff + i * phentsize);
    if (read_uint(head, at, 4, big) != kPtInterp) continue;
    const std::uint64_t offset =
        is64 ? read_uint(head, at + 8, 8, big) : read_uint(head, at + 4, 4, big);
    const std::uint64_t size =
        is64 ? read_uint(head, at + 32, 8, big) : read_uint(head, at + 16, 4, big);
    LoaderFacts f;
    f.kind = LoaderKind::dynamic;
    if (offset < head.size() && size <= head.size() - offset) {
      std::string_view path =
          head.substr(static_cast<std::size_t>(offset), static_cast<std::size_t>(size));
      f.interpreter = std::string(path.substr(0, path.find('\0')));
    }
    return f;
  }
  return {LoaderKind::static_elf, "", ""};
}

Result<Executable> find_executable(const std::string& command) {
  Executable e;
  auto runnable = [](const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
  };
  if (command.find('/') != std::string::npos) {
    if (runnable(command)) e.path = command;
  } else if (!command.empty()) {
    const char* env = std::getenv("PATH");
    std::string path = env ? env : "/bin:/usr/bin";
    std::size_t pos = 0;
    while (e.path.empty() && pos <= path.size()) {
      std::size_t end = path.find(':', pos);
      if (end == std::string::npos) end = path.size();
      std::string dir = path.substr(pos, end - pos);
      std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + command;
      if (runnable(candidate)) e.path = candidate;
      pos = end + 1;
    }
  }
  if (e.path.empty())
    return Error::from_errno(ENOENT, "'" + command + "' is not an executable file here");
  auto head = read_file_head(e.path, kHeadBytes);
  if (!head) return head.error();
  LoaderFacts facts = loader_facts(*head);
  e.kind = e.runs_as = facts.kind;
  if (facts.kind == LoaderKind::script) {
    e.interpreter = facts.interpreter;
    e.runs_as = LoaderKind::unknown;
    if (runnable(facts.interpreter))
      if (auto ihead = read_file_head(facts.interpreter, kHeadBytes); ihead)
        e.runs_as = loader_facts(*ihead).kind;
  }
  return e;
}

}  // namespace threadmap::os
