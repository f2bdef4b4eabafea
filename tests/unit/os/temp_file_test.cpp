// Private temporary files (`run --stats` hands one to the thread cache by name, and as an
// inherited append-only descriptor): a fresh empty file only this user can read or write, in
// $TMPDIR when it is absolute, removed afterwards.
#include "src/os/temp_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace threadmap::os {
namespace {

// Sets TMPDIR for one test and puts the old value back.
class TmpdirScope {
 public:
  explicit TmpdirScope(const char* value) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    if (value)
      setenv("TMPDIR", value, 1);
    else
      unsetenv("TMPDIR");
  }
  ~TmpdirScope() {
    if (old_.empty())
      unsetenv("TMPDIR");
    else
      setenv("TMPDIR", old_.c_str(), 1);
  }

 private:
  std::string old_;
};

TEST(TempFile, AFreshEmptyFileOnlyTheUserCanReadOrWrite) {
  std::string dir = testing::TempDir();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  TmpdirScope scope(dir.c_str());
  auto a = create_private_temp_file("tm-temp-test");
  auto b = create_private_temp_file("tm-temp-test");
  ASSERT_TRUE(a) << a.error().message;
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_NE(*a, *b);
  EXPECT_EQ(a->rfind(dir + "/tm-temp-test.", 0), 0u) << *a;
  struct stat st {};
  ASSERT_EQ(stat(a->c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, 0);
  remove_file(*a);
  remove_file(*b);
  EXPECT_NE(access(a->c_str(), F_OK), 0);
  remove_file(*a);  // already gone: no error, nothing happens
}

TEST(TempFile, ARelativeTmpdirIsNotUsed) {
  // The file is handed on by name to programs that may change directory: always absolute.
  TmpdirScope scope("relative/dir");
  auto path = create_private_temp_file("tm-temp-test");
  ASSERT_TRUE(path) << path.error().message;
  EXPECT_EQ(path->rfind("/tmp/tm-temp-test.", 0), 0u) << *path;
  remove_file(*path);
}

TEST(TempFile, AMissingDirectoryIsAnErrorNamingIt) {
  TmpdirScope scope("/nonexistent/threadmap-test-dir");
  auto path = create_private_temp_file("tm-temp-test");
  ASSERT_FALSE(path);
  EXPECT_NE(path.error().message.find("/nonexistent/threadmap-test-dir"), std::string::npos)
      << path.error().message;
}

TEST(TempFile, AnInheritedAppendDescriptorNamesItsFileAndSurvivesExec) {
  std::string dir = testing::TempDir();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  TmpdirScope scope(dir.c_str());
  auto path = create_private_temp_file("tm-temp-test");
  ASSERT_TRUE(path) << path.error().message;
  auto fd = open_inherited_append(*path);
  ASSERT_TRUE(fd) << fd.error().message;
  struct stat st {};
  ASSERT_EQ(stat(path->c_str(), &st), 0);
  EXPECT_EQ(fd->inode, static_cast<unsigned long long>(st.st_ino));
  int flags = fcntl(fd->fd, F_GETFL);
  EXPECT_TRUE(flags & O_APPEND);
  EXPECT_EQ(flags & O_ACCMODE, O_WRONLY);
  EXPECT_EQ(fcntl(fd->fd, F_GETFD) & FD_CLOEXEC, 0);  // the started programs get it
  ASSERT_EQ(write(fd->fd, "ab", 2), 2);
  ASSERT_EQ(write(fd->fd, "c", 1), 1);
  close_inherited(fd->fd);
  ASSERT_EQ(stat(path->c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 3);
  remove_file(*path);
}

TEST(TempFile, AnInheritedAppendOfAMissingFileIsAnErrorNamingIt) {
  auto fd = open_inherited_append("/nonexistent/threadmap-test-file");
  ASSERT_FALSE(fd);
  EXPECT_NE(fd.error().message.find("/nonexistent/threadmap-test-file"), std::string::npos)
      << fd.error().message;
}

}  // namespace
}  // namespace threadmap::os
