// Tests of whole-file reads, atomic writes and directory creation.
#include "lowering/io/file.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace relay::io {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      names.push_back(e->d_name);
    }
  }
  closedir(d);
  return names;
}

TEST(File, WriteThenReadAndOverwrite) {
  std::string dir = TempDir() + "/file_write";
  ASSERT_TRUE(MakeDirectories(dir).ok());
  std::string path = dir + "/a.txt";
  ASSERT_TRUE(WriteFileAtomically(path, std::string("one\0two", 7)).ok());
  auto contents = ReadFile(path);
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(*contents, std::string("one\0two", 7));

  ASSERT_TRUE(WriteFileAtomically(path, "replaced").ok());
  EXPECT_EQ(*ReadFile(path), "replaced");
  // The temporary was renamed over the target: only the target remains.
  EXPECT_THAT(ListDir(dir), ElementsAre("a.txt"));

  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_NE(st.st_mode & S_IRGRP, 0u) << "outputs must not keep mkstemp's 0600";
}

TEST(File, WriteIntoMissingDirectoryFails) {
  absl::Status status = WriteFileAtomically(TempDir() + "/no_such_dir/x.txt", "x");
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("no_such_dir/x.txt"));
}

TEST(File, FailedRenameLeavesNoTemporary) {
  // The target is a non-empty directory: the data is written, then rename(2) fails.
  std::string dir = TempDir() + "/file_rename_fails";
  ASSERT_TRUE(MakeDirectories(dir + "/target/inside").ok());
  absl::Status status = WriteFileAtomically(dir + "/target", "data");
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("target"));
  EXPECT_THAT(ListDir(dir), ElementsAre("target"));
}

TEST(File, ReadErrors) {
  auto missing = ReadFile(TempDir() + "/missing.txt");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("missing.txt"));

  auto dir = ReadFile(TempDir());
  ASSERT_FALSE(dir.ok());
  EXPECT_THAT(std::string(dir.status().message()), HasSubstr("is a directory"));
}

TEST(File, MakeDirectories) {
  std::string nested = TempDir() + "/mk/a/b/c";
  ASSERT_TRUE(MakeDirectories(nested).ok());
  ASSERT_TRUE(MakeDirectories(nested).ok()) << "an existing directory is fine";
  ASSERT_TRUE(MakeDirectories(nested + "/").ok());
  struct stat st;
  ASSERT_EQ(stat(nested.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));

  ASSERT_TRUE(WriteFileAtomically(TempDir() + "/mk/file", "x").ok());
  absl::Status status = MakeDirectories(TempDir() + "/mk/file/sub");
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("is not a directory"));
}

}  // namespace
}  // namespace relay::io
