// Files as the commands use them: bounded reads with the kernel's reason, whole-or-nothing
// writes, directories created once.
#include "src/os/files.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace threadmap::os {
namespace {

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tm-files-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(FilesTest, WriteThenReadBack) {
  const std::string path = dir_ + "/a.json";
  ASSERT_TRUE(write_file(path, "{\"x\": 1}\n").ok());
  auto text = read_file(path);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(*text, "{\"x\": 1}\n");
  // No temporary file is left next to it.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) entries += e.exists();
  EXPECT_EQ(entries, 1);
}

// A named pipe nobody writes to is refused at once (it used to hang); one with a writer, as
// process substitution gives, is read like a file.
TEST_F(FilesTest, NamedPipesWithoutWriterAreRefusedWithWriterRead) {
  const std::string fifo = dir_ + "/pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto none = read_file(fifo, 1 << 16, "spec");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("named pipe (FIFO) and nothing writes to it"),
            std::string::npos)
      << none.error().message;
  pid_t writer = fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) {
    int fd = ::open(fifo.c_str(), O_WRONLY);
    usleep(50 * 1000);  // the reader is already waiting, and reads what comes later
    (void)!::write(fd, "{\"a\": 1}", 8);
    _exit(0);
  }
  // Wait for the writer to open its end, then read (no race: without it, the refusal above).
  for (int i = 0; i < 200; ++i) {
    auto text = read_file(fifo, 1 << 16, "spec");
    if (text.ok()) {
      EXPECT_EQ(*text, "{\"a\": 1}");
      break;
    }
    usleep(5 * 1000);
  }
  int status = 0;
  waitpid(writer, &status, 0);
}

TEST_F(FilesTest, ReadsAreBoundedAndSayWhy) {
  auto big = read_file("/dev/zero", 1 << 16, "spec");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().code.value(), EFBIG);
  EXPECT_NE(big.error().message.find("cannot read spec '/dev/zero'"), std::string::npos)
      << big.error().message;
  auto dir = read_file(dir_);
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error().code.value(), EISDIR);
  auto missing = read_file(dir_ + "/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code.value(), ENOENT);
}

TEST_F(FilesTest, UnreadableFileGivesPermissionDenied) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads files whatever their mode";
  const std::string path = dir_ + "/secret";
  ASSERT_TRUE(write_file(path, "x").ok());
  chmod(path.c_str(), 0);
  auto text = read_file(path);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().code.value(), EACCES);
}

TEST_F(FilesTest, FailedWriteLeavesNothingAndNamesThePath) {
  auto st = write_file(dir_ + "/no/such/dir/out.json", "x");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("out.json"), std::string::npos);
  EXPECT_FALSE(check_writable(dir_ + "/no/such/dir/out.json").ok());
  EXPECT_FALSE(check_writable(dir_).ok());  // a directory is not a file to write
  EXPECT_TRUE(check_writable(dir_ + "/fresh.json").ok());
  EXPECT_TRUE(check_writable("-").ok());
}

TEST_F(FilesTest, WritingADeviceWritesInPlace) {
  EXPECT_TRUE(write_file("/dev/null", "discarded").ok());
  auto full = write_file("/dev/full", "no room");
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().code.value(), ENOSPC);
}

TEST_F(FilesTest, CreateDirectoryOnceAndRefuseAFile) {
  bool created = false;
  ASSERT_TRUE(create_directory(dir_ + "/out", &created).ok());
  EXPECT_TRUE(created);
  ASSERT_TRUE(create_directory(dir_ + "/out", &created).ok());
  EXPECT_FALSE(created);
  ASSERT_TRUE(write_file(dir_ + "/file", "x").ok());
  auto st = create_directory(dir_ + "/file");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code.value(), ENOTDIR);
}

}  // namespace
}  // namespace threadmap::os
