#include "platform/private_file.h"

#include <gtest/gtest.h>

#if !defined(_WIN32)
#include <sys/stat.h>
#endif

#include "platform/platform_test_support.h"
#include "platform/user_dirs.h"

namespace licensed::client {
namespace {

size_t entries_in(const std::filesystem::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(PrivateFile, ReplacesAnExistingFileWholeAndLeavesNoTemporaryFile) {
  test::ScratchDir scratch;
  const auto dir = scratch.path() / "cache";
  ASSERT_TRUE(make_private_dir(dir));
  const auto file = dir / "answer.json";
  ASSERT_TRUE(replace_private_file(file, std::string(100000, 'a')));
  ASSERT_TRUE(replace_private_file(file, "second"));
  EXPECT_EQ(read_whole_file(file), "second");
  EXPECT_EQ(entries_in(dir), 1u);
}

TEST(PrivateFile, WorksInADirectoryWhoseNameIsNotAscii) {
  // A user named José, a vendor folder with a note in it: wide paths on Windows.
  test::ScratchDir scratch;
  const auto dir =
      scratch.path() / path_from_utf8("Jos\xc3\xa9") / path_from_utf8("\xe2\x99\xaa acme");
  ASSERT_TRUE(make_private_dir(dir));
  const auto file = dir / path_from_utf8("r\xc3\xa9ponse.json");
  ASSERT_TRUE(replace_private_file(file, "{\"ok\":true}"));
  EXPECT_EQ(read_whole_file(file), "{\"ok\":true}");
  EXPECT_TRUE(std::filesystem::exists(file));
}

TEST(PrivateFile, AMissingDirectoryIsAFailureWithNothingLeftBehind) {
  test::ScratchDir scratch;
  EXPECT_FALSE(replace_private_file(scratch.path() / "absent" / "answer.json", "x"));
  EXPECT_FALSE(std::filesystem::exists(scratch.path() / "absent"));
  EXPECT_EQ(entries_in(scratch.path()), 0u);
}

TEST(PrivateFile, AFileThatCannotBeReadIsNoContent) {
  test::ScratchDir scratch;
  EXPECT_FALSE(read_whole_file(scratch.path() / "absent.json").has_value());
  ASSERT_TRUE(replace_private_file(scratch.path() / "empty.json", ""));
  EXPECT_EQ(read_whole_file(scratch.path() / "empty.json"), "");
}

TEST(PrivateFile, MakingTheDirectoryTwiceIsFine) {
  test::ScratchDir scratch;
  EXPECT_TRUE(make_private_dir(scratch.path() / "a" / "b"));
  EXPECT_TRUE(make_private_dir(scratch.path() / "a" / "b"));
}

#if !defined(_WIN32)
TEST(PrivateFile, TheDirectoryIs0700AndTheFile0600WhateverTheUmask) {
  test::ScratchDir scratch;
  const mode_t old_umask = ::umask(0);
  const bool made = make_private_dir(scratch.path() / "cache");
  const bool written = replace_private_file(scratch.path() / "cache" / "answer.json", "x");
  ::umask(old_umask);
  ASSERT_TRUE(made && written);
  struct stat st {};
  ASSERT_EQ(::stat((scratch.path() / "cache").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat((scratch.path() / "cache" / "answer.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}
#endif

}  // namespace
}  // namespace licensed::client
