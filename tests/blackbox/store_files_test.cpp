// The SQLite store holds every license and, unless --response-key gives one, the private
// key that signs answers: every file licensed creates is its user's alone (mode 0600),
// and `serve` warns at start about a store file open to others (docs/deploy.md, "Files
// and permissions").
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "support/fixture.h"

namespace bb {
namespace {

class StoreFiles : public BlackboxTest {};

constexpr std::string_view kOpenToOthers = "is open to other users";

// The permission bits of `path`, or -1 when it does not exist.
int Mode(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return -1;
  return static_cast<int>(st.st_mode & 07777);
}

TEST_F(StoreFiles, AStoreServeCreatesAndItsWalAndShmFilesAreMode0600) {
  SKIP_UNLESS_SQLITE();
  const std::filesystem::path fresh = dir().path() / "fresh.db";
  ServerOptions o;
  o.store_flag = false;
  o.args = {"--store", "sqlite:" + fresh.string(), "--create"};
  Start(o);
  for (const char* suffix : {"", "-wal", "-shm"}) {
    EXPECT_EQ(Mode(fresh.string() + suffix), 0600) << fresh.string() + suffix;
  }
  EXPECT_EQ(server().log().find(kOpenToOthers), std::string::npos) << server().log();
}

TEST_F(StoreFiles, AStoreTheAdminCommandCreatesIsMode0600) {
  SKIP_UNLESS_SQLITE();
  // The fixture made the store with `licensed init`, then `licensed admin product create`.
  EXPECT_EQ(Mode(db_path()), 0600);
}

TEST_F(StoreFiles, ServeWarnsAtStartAboutAStoreFileOthersCanRead) {
  SKIP_UNLESS_SQLITE();
  std::filesystem::permissions(db_path(), std::filesystem::perms(0644),
                               std::filesystem::perm_options::replace);
  Start();
  EXPECT_TRUE(server().LogEventually("store file " + db_path().string() + " " +
                                     std::string(kOpenToOthers) + " (mode 0644)"))
      << server().log();
  // Still served: a warning, not a refusal.
  EXPECT_OK(Status(NewLicense(1)));
}

}  // namespace
}  // namespace bb
