// Which programs ld.so runs first (PT_INTERP): crafted ELF headers of both classes and byte
// orders, scripts, and real programs of this machine judged as `readelf -l` (binutils) lists
// their program headers.
#include "src/os/executable_kind.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

using threadmap::os::loader_facts;
using threadmap::os::LoaderKind;

void put(std::string& s, std::size_t at, std::uint64_t v, std::size_t bytes, bool big) {
  for (std::size_t i = 0; i < bytes; ++i)
    s[at + (big ? bytes - 1 - i : i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// An ELF header with program headers of the given types (PT_INTERP = 3 points at "/ld.so").
std::string elf(bool is64, bool big, std::initializer_list<std::uint32_t> types) {
  const std::size_t ehsize = is64 ? 64 : 52, phentsize = is64 ? 56 : 32;
  std::string s(ehsize + types.size() * phentsize + 16, '\0');
  std::memcpy(s.data(),
              "\x7f"
              "ELF",
              4);
  s[4] = is64 ? 2 : 1;
  s[5] = big ? 2 : 1;
  s[6] = 1;
  put(s, 16, 2, 2, big);  // ET_EXEC
  put(s, is64 ? 32 : 28, ehsize, is64 ? 8 : 4, big);
  put(s, is64 ? 54 : 42, phentsize, 2, big);
  put(s, is64 ? 56 : 44, types.size(), 2, big);
  const std::size_t strings = ehsize + types.size() * phentsize;
  std::memcpy(s.data() + strings, "/ld.so", 7);
  std::size_t at = ehsize;
  for (std::uint32_t type : types) {
    put(s, at, type, 4, big);
    put(s, at + (is64 ? 8 : 4), strings, is64 ? 8 : 4, big);
    put(s, at + (is64 ? 32 : 16), 7, is64 ? 8 : 4, big);
    at += phentsize;
  }
  return s;
}

TEST(LoaderFacts, PtInterpMeansTheDynamicLoaderRuns) {
  for (bool is64 : {true, false})
    for (bool big : {false, true}) {
      auto dynamic = loader_facts(elf(is64, big, {6, 3, 1}));  // PHDR, INTERP, LOAD
      EXPECT_EQ(dynamic.kind, LoaderKind::dynamic) << is64 << big;
      EXPECT_EQ(dynamic.interpreter, "/ld.so");
      EXPECT_EQ(loader_facts(elf(is64, big, {1, 1, 4})).kind, LoaderKind::static_elf)
          << is64 << big;
    }
}

TEST(LoaderFacts, ScriptsNameTheirInterpreter) {
  auto s = loader_facts("#! /bin/sh -e\necho hi\n");
  EXPECT_EQ(s.kind, LoaderKind::script);
  EXPECT_EQ(s.interpreter, "/bin/sh");
  EXPECT_EQ(loader_facts("#!/usr/bin/env python3\n").interpreter, "/usr/bin/env");
}

TEST(LoaderFacts, WhatCannotBeReadIsUnknownNotStatic) {
  EXPECT_EQ(loader_facts("").kind, LoaderKind::unknown);
  EXPECT_EQ(loader_facts("plain text").kind, LoaderKind::unknown);
  std::string cut = elf(true, false, {3});
  EXPECT_EQ(loader_facts(cut.substr(0, 40)).kind, LoaderKind::unknown);
  EXPECT_EQ(loader_facts(cut.substr(0, 80)).kind, LoaderKind::unknown);  // headers cut short
  EXPECT_EQ(loader_facts("#!\n").kind, LoaderKind::unknown);
}

// `readelf -l FILE` lists an INTERP program header exactly when ld.so runs first.
int readelf_says_interp(const std::string& path) {
  FILE* p = popen(("readelf -lW '" + path + "' 2>/dev/null").c_str(), "r");
  if (!p) return -1;
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (pclose(p) != 0 || out.find("Program Headers") == std::string::npos) return -1;
  return out.find("  INTERP ") != std::string::npos ? 1 : 0;
}

TEST(FindExecutable, AgreesWithReadelfOnThisMachinesPrograms) {
  int compared = 0;
  for (const char* path : {"/bin/sh", "/sbin/ldconfig", "/usr/bin/env", STATIC_PROBE}) {
    if (!*path) continue;
    const int interp = readelf_says_interp(path);
    if (interp < 0) continue;  // not here, or no readelf
    auto found = threadmap::os::find_executable(path);
    ASSERT_TRUE(found) << path << ": " << found.error().message;
    EXPECT_EQ(found->kind, interp ? LoaderKind::dynamic : LoaderKind::static_elf) << path;
    ++compared;
  }
  if (compared == 0) GTEST_SKIP() << "readelf not found";
}

TEST(FindExecutable, SearchesPathAsExecvpAndFollowsAScriptsInterpreter) {
  auto sh = threadmap::os::find_executable("sh");
  ASSERT_TRUE(sh) << sh.error().message;
  EXPECT_NE(sh->path.find("/sh"), std::string::npos);
  EXPECT_FALSE(threadmap::os::find_executable("no-such-program-here-12345"));
  if (std::string(STATIC_PROBE).empty()) GTEST_SKIP() << "no static probe in this build";
  const std::string script = "/tmp/tm_exec_kind_" + std::to_string(::getpid()) + ".sh";
  FILE* f = std::fopen(script.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("#!" STATIC_PROBE "\n", f);
  std::fclose(f);
  ::chmod(script.c_str(), 0755);
  auto found = threadmap::os::find_executable(script);
  ::unlink(script.c_str());
  ASSERT_TRUE(found);
  EXPECT_EQ(found->kind, LoaderKind::script);
  EXPECT_EQ(found->interpreter, STATIC_PROBE);
  EXPECT_EQ(found->runs_as, LoaderKind::static_elf);
}

}  // namespace
