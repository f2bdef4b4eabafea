// What a program file is, read from the file: PATH lookup as execvp does it, and the ELF
// DT_NEEDED entries (what `readelf -d` lists as NEEDED) of real binaries on this machine.
#include "src/os/program_file.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace threadmap::os {
namespace {

TEST(ProgramFile, FindsProgramsOnPathAndPathsAsThemselves) {
  const std::string sh = find_program("sh");
  ASSERT_FALSE(sh.empty());
  EXPECT_EQ(access(sh.c_str(), X_OK), 0);
  EXPECT_EQ(find_program("/bin/sh"), "/bin/sh");
  EXPECT_EQ(find_program("threadmap-no-such-program"), "");
  EXPECT_EQ(find_program(""), "");
}

// /bin/sh (dash or bash) is linked against the C library: readelf -d shows NEEDED libc.so.6.
TEST(ProgramFile, ReadsTheNeededLibrariesOfADynamicExecutable) {
  auto needed = elf_needed_libraries("/bin/sh");
  ASSERT_TRUE(needed) << needed.error().message;
  EXPECT_NE(std::find(needed->begin(), needed->end(), "libc.so.6"), needed->end());
}

// ldconfig is static (static-pie on Debian): nothing needed.
TEST(ProgramFile, AStaticExecutableNeedsNothing) {
  if (access("/sbin/ldconfig", R_OK) != 0) GTEST_SKIP() << "no /sbin/ldconfig here";
  auto needed = elf_needed_libraries("/sbin/ldconfig");
  ASSERT_TRUE(needed) << needed.error().message;
  EXPECT_TRUE(needed->empty());
}

TEST(ProgramFile, AScriptIsNotAnElfFile) {
  char path[] = "/tmp/tm_program_file_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "#!/bin/sh\necho hi\n", 18), 18);
  close(fd);
  auto needed = elf_needed_libraries(path);
  unlink(path);
  ASSERT_FALSE(needed);
  EXPECT_EQ(needed.error().code, std::errc::executable_format_error);
  EXPECT_FALSE(elf_needed_libraries("/nonexistent/program"));
}

}  // namespace
}  // namespace threadmap::os
