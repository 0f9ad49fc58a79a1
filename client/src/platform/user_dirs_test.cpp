#include "platform/user_dirs.h"

#include <gtest/gtest.h>

#include "platform/platform_test_support.h"

namespace licensed::client {
namespace {

using test::ScopedEnv;

TEST(UserDirs, AUtf8PathKeepsItsCharacters) {
  // "Jos\u00e9" and a note: what a Windows user name or a vendor's folder may hold.
  const std::filesystem::path p = path_from_utf8("Jos\xc3\xa9 \xe2\x99\xaa");
#if defined(_WIN32)
  EXPECT_EQ(p.wstring(), std::wstring(L"Jos\u00e9 \u266a"));
#else
  EXPECT_EQ(p.string(), "Jos\xc3\xa9 \xe2\x99\xaa");
#endif
}

#if defined(_WIN32)
TEST(UserDirs, WindowsCacheIsTheVendorsFolderInLocalAppData) {
  const ScopedEnv local("LOCALAPPDATA", "C:\\Users\\Jos\xc3\xa9\\AppData\\Local");
  const auto dir = default_cache_dir("acme-audio");
  EXPECT_EQ(dir.wstring(), std::wstring(L"C:\\Users\\Jos\u00e9\\AppData\\Local\\acme-audio"));
}

TEST(UserDirs, WindowsActivationFilesAreMachineWideInProgramData) {
  const ScopedEnv data("PROGRAMDATA", "C:\\ProgramData");
  const auto dirs = machine_file_dirs("acme-audio");
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_EQ(dirs[0].wstring(), std::wstring(L"C:\\ProgramData\\acme-audio"));
}

TEST(UserDirs, WindowsWithoutLocalAppDataHasNoCacheDir) {
  const ScopedEnv local("LOCALAPPDATA", std::nullopt);
  EXPECT_EQ(default_cache_dir("acme-audio"), std::filesystem::path());
}
#elif defined(__APPLE__)
TEST(UserDirs, MacCacheIsTheVendorsFolderInLibraryCaches) {
  const ScopedEnv home("HOME", "/Users/jose");
  EXPECT_EQ(default_cache_dir("acme-audio"),
            std::filesystem::path("/Users/jose/Library/Caches/acme-audio"));
}

TEST(UserDirs, MacActivationFilesAreInLibraryApplicationSupportThenTheUsers) {
  const ScopedEnv home("HOME", "/Users/jose");
  const std::vector<std::filesystem::path> expected{
      "/Library/Application Support/acme-audio",
      "/Users/jose/Library/Application Support/acme-audio"};
  EXPECT_EQ(machine_file_dirs("acme-audio"), expected);
}
#else
TEST(UserDirs, LinuxActivationFilesAreInVarLibThenXdgDataHome) {
  const ScopedEnv xdg("XDG_DATA_HOME", "/tmp/xdg-data-for-test");
  const std::vector<std::filesystem::path> expected{"/var/lib/acme-audio",
                                                    "/tmp/xdg-data-for-test/acme-audio"};
  EXPECT_EQ(machine_file_dirs("acme-audio"), expected);
}

TEST(UserDirs, LinuxActivationFilesFallBackToDotLocalShareWithoutXdgDataHome) {
  const ScopedEnv xdg("XDG_DATA_HOME", "relative/data");
  const ScopedEnv home("HOME", "/home/jose");
  const std::vector<std::filesystem::path> expected{"/var/lib/acme",
                                                    "/home/jose/.local/share/acme"};
  EXPECT_EQ(machine_file_dirs("acme"), expected);
}

TEST(UserDirs, LinuxCacheIsTheVendorsFolderInXdgCacheHome) {
  const ScopedEnv xdg("XDG_CACHE_HOME", "/tmp/xdg-for-test");
  EXPECT_EQ(default_cache_dir("acme-audio"), std::filesystem::path("/tmp/xdg-for-test/acme-audio"));
}

TEST(UserDirs, LinuxWithoutXdgCacheHomeUsesDotCacheInHome) {
  const ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
  const ScopedEnv home("HOME", "/home/jose");
  EXPECT_EQ(default_cache_dir("licensed-client"),
            std::filesystem::path("/home/jose/.cache/licensed-client"));
}

TEST(UserDirs, ARelativeXdgCacheHomeIsIgnored) {
  // The XDG spec: a relative path there is invalid.
  const ScopedEnv xdg("XDG_CACHE_HOME", "relative/cache");
  const ScopedEnv home("HOME", "/home/jose");
  EXPECT_EQ(default_cache_dir("acme"), std::filesystem::path("/home/jose/.cache/acme"));
}

TEST(UserDirs, NoHomeAndNoXdgIsNoCacheDir) {
  const ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
  const ScopedEnv home("HOME", std::nullopt);
  EXPECT_EQ(default_cache_dir("acme"), std::filesystem::path());
}
#endif

}  // namespace
}  // namespace licensed::client
