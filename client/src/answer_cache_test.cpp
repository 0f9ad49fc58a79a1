// The answer cache's file format and replacement. Built for the SDK's Linux tests and,
// for Windows, run under Wine (LICENSE_CLIENT_PORTABLE_TESTS); the file modes are POSIX's.
#include "answer_cache.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "platform/platform_test_support.h"

#if !defined(_WIN32)
#include <sys/stat.h>
#endif

namespace licensed::client {
namespace {

SignedAnswer sample() {
  return {"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
          {"/api/v1/license/status", "1795339800", "0123456789abcdef", "{\"licenseKey\":\"k\"}"},
          200,
          "{\"ok\":true,\"valid\":true}",
          "kid=k, t=1795339800, ed25519=AAAA"};
}

TEST(AnswerCache, StoresAndLoadsTheSignedAnswerAsItWas) {
  test::ScratchDir dir;
  const AnswerCache cache(dir.path() / "nested" / "cache");
  ASSERT_TRUE(cache.store("license", "machine", sample()));
  const auto loaded = cache.load("license", "machine");
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->request_signature, sample().request_signature);
  EXPECT_EQ(loaded->request.path, sample().request.path);
  EXPECT_EQ(loaded->request.timestamp, sample().request.timestamp);
  EXPECT_EQ(loaded->request.nonce, sample().request.nonce);
  EXPECT_EQ(loaded->request.body, sample().request.body);
  EXPECT_EQ(loaded->status, 200);
  EXPECT_EQ(loaded->body, sample().body);
  EXPECT_EQ(loaded->signature, sample().signature);
  EXPECT_FALSE(cache.load("license", "another machine").has_value());
}

TEST(AnswerCache, ReplacesByRenameAndLeavesNoTemporaryFile) {
  test::ScratchDir dir;
  const AnswerCache cache(dir.path());
  SignedAnswer a = sample();
  ASSERT_TRUE(cache.store("l", "m", a));
  a.body = "{\"ok\":true,\"valid\":false}";
  a.signature.reset();
  ASSERT_TRUE(cache.store("l", "m", a));
  EXPECT_EQ(cache.load("l", "m")->body, a.body);
  EXPECT_FALSE(cache.load("l", "m")->signature.has_value());
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    ++files;
    EXPECT_EQ(e.path(), cache.file_for("l", "m"));
  }
  EXPECT_EQ(files, 1);
  cache.remove("l", "m");
  EXPECT_FALSE(cache.load("l", "m").has_value());
}

TEST(AnswerCache, AMalformedFileIsNoEntry) {
  test::ScratchDir dir;
  const AnswerCache cache(dir.path());
  // The last is a version 1 entry: a v1-response answer, no longer accepted.
  for (const char* text :
       {"", "{", "[]", "{\"version\":2,\"status\":200}",
        "{\"version\":1,\"status\":200,\"nonce\":\"n\",\"date\":\"d\",\"body\":\"{}\"}"}) {
    std::ofstream(cache.file_for("l", "m")) << text;
    EXPECT_FALSE(cache.load("l", "m").has_value()) << text;
  }
}

TEST(AnswerCache, TheLatestTimeSeenOnlyMovesForward) {
  test::ScratchDir dir;
  const AnswerCache cache(dir.path() / "cache");
  EXPECT_FALSE(cache.latest_time().has_value());
  cache.remember_time(1795339800);
  cache.remember_time(1795000000);
  EXPECT_EQ(cache.latest_time(), 1795339800);
  cache.remember_time(1795339801);
  EXPECT_EQ(AnswerCache(dir.path() / "cache").latest_time(), 1795339801) << "kept on disk";
}

#if !defined(_WIN32)
// Review item 4: the answer is the user's alone: directory 0700, file 0600, whatever
// the umask says. (On Windows the directory under %LOCALAPPDATA% is the user's already:
// platform/private_file_test.cpp.)
TEST(AnswerCache, TheDirectoryAndTheFileAreTheUsersAlone) {
  test::ScratchDir dir;
  const mode_t old_umask = ::umask(0);
  const AnswerCache cache(dir.path() / "parent" / "cache");
  const bool stored = cache.store("l", "m", sample());
  ::umask(old_umask);
  ASSERT_TRUE(stored);
  struct stat st {};
  ASSERT_EQ(::stat((dir.path() / "parent" / "cache").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat(cache.file_for("l", "m").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}
#endif

}  // namespace
}  // namespace licensed::client
