// Private temporary files (`run --stats` hands one to the thread cache by name): a fresh empty
// file only this user can read or write, in $TMPDIR when it is absolute, removed afterwards.
#include "src/os/temp_file.hpp"

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

}  // namespace
}  // namespace threadmap::os
