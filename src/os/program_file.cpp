#include "src/os/program_file.hpp"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace threadmap::os {
namespace {

// Reads exactly `size` bytes at `offset`; false on a short read or an error (errno set).
bool read_at(int fd, void* buffer, std::size_t size, std::uint64_t offset) {
  auto* out = static_cast<char*>(buffer);
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

Error read_error(const std::string& path, int error) {
  return Error::from_errno(error, "cannot read '" + path + "': " + std::strerror(error));
}

// The DT_NEEDED names of an ELF of one class (Ehdr/Phdr/Dyn of 32 or 64 bits).
template <typename Ehdr, typename Phdr, typename Dyn>
Result<std::vector<std::string>> needed_of(int fd, const std::string& path) {
  Ehdr header{};
  if (!read_at(fd, &header, sizeof header, 0)) return read_error(path, errno);
  std::vector<Phdr> segments(header.e_phnum);
  if (header.e_phentsize != sizeof(Phdr) ||
      !read_at(fd, segments.data(), sizeof(Phdr) * segments.size(), header.e_phoff))
    return Error::from_errno(EIO, "'" + path + "': program headers cut short");
  const Phdr* dynamic = nullptr;
  for (const Phdr& p : segments)
    if (p.p_type == PT_DYNAMIC) dynamic = &p;
  if (!dynamic) return std::vector<std::string>{};  // static: nothing needed
  std::vector<Dyn> entries(dynamic->p_filesz / sizeof(Dyn));
  if (!read_at(fd, entries.data(), sizeof(Dyn) * entries.size(), dynamic->p_offset))
    return Error::from_errno(EIO, "'" + path + "': dynamic section cut short");
  std::uint64_t strtab = 0, strsz = 0;
  for (const Dyn& d : entries) {
    if (d.d_tag == DT_STRTAB) strtab = d.d_un.d_ptr;
    if (d.d_tag == DT_STRSZ) strsz = d.d_un.d_val;
  }
  // DT_STRTAB is an address: the loadable segment that holds it gives its place in the file.
  std::uint64_t strtab_offset = 0;
  bool mapped = false;
  for (const Phdr& p : segments)
    if (p.p_type == PT_LOAD && strtab >= p.p_vaddr && strtab < p.p_vaddr + p.p_filesz) {
      strtab_offset = strtab - p.p_vaddr + p.p_offset;
      mapped = true;
    }
  if (!mapped || strsz == 0 || strsz > (64u << 20))
    return Error::from_errno(EIO, "'" + path + "': no readable string table");
  std::string strings(strsz, '\0');
  if (!read_at(fd, strings.data(), strings.size(), strtab_offset))
    return Error::from_errno(EIO, "'" + path + "': string table cut short");
  std::vector<std::string> needed;
  for (const Dyn& d : entries) {
    if (d.d_tag == DT_NULL) break;
    if (d.d_tag == DT_NEEDED && d.d_un.d_val < strings.size())
      needed.emplace_back(strings.c_str() + d.d_un.d_val);
  }
  return needed;
}

}  // namespace

std::string find_program(const std::string& name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

Result<std::vector<std::string>> elf_needed_libraries(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return read_error(path, errno);
  unsigned char ident[EI_NIDENT] = {};
  Result<std::vector<std::string>> out = std::vector<std::string>{};
  if (!read_at(fd, ident, sizeof ident, 0) || std::memcmp(ident, ELFMAG, SELFMAG) != 0 ||
      ident[EI_DATA] != ELFDATA2LSB) {
    out = Error::from_errno(ENOEXEC, "'" + path + "' is not an ELF executable");
  } else if (ident[EI_CLASS] == ELFCLASS64) {
    out = needed_of<Elf64_Ehdr, Elf64_Phdr, Elf64_Dyn>(fd, path);
  } else if (ident[EI_CLASS] == ELFCLASS32) {
    out = needed_of<Elf32_Ehdr, Elf32_Phdr, Elf32_Dyn>(fd, path);
  } else {
    out = Error::from_errno(ENOEXEC, "'" + path + "': unknown ELF class");
  }
  ::close(fd);
  return out;
}

}  // namespace threadmap::os
